import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../sandbox/sandbox.ts';
import { createHookRunner } from './runner.ts';
import type { HookSandbox } from './sandboxed-hook.ts';
import type { HookInput } from './types.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;

/** Command hooks with `sandbox.hooks` on run in the sandbox: project writable, nothing else, own allowlist. */
describe.skipIf(!availability.available)(`sandboxed command hooks${skipReason}`, () => {
  let base: string;
  let http: Server;
  let port = 0;
  beforeAll(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-hook-sandbox-')));
    http = createServer((request, response) => response.end(`hello ${request.headers.host}`));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as { port: number }).port;
  });
  afterAll(() => {
    http.close();
    rmSync(base, { recursive: true, force: true });
  });

  async function runHook(name: string, command: string, sandbox?: HookSandbox) {
    const project = join(base, name, 'project');
    mkdirSync(project, { recursive: true });
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] },
      projectDir: project,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(base, name) },
      ...(sandbox ? { sandbox } : {}),
    });
    const input: HookInput = {
      session_id: 's',
      transcript_path: join(project, 't.jsonl'),
      cwd: project,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_1',
    };
    await runner.run('PreToolUse', input, { signal: new AbortController().signal, matchValue: 'Bash' });
    await runner.dispose();
    return { project, outside: join(base, name) };
  }

  const writer = 'echo in > inside.txt; echo out > ../outside.txt; echo rc > ../../rc.txt';

  it('writes the project and nothing else', async () => {
    const { project, outside } = await runHook('sandboxed', writer, {});
    expect(readFileSync(join(project, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(join(outside, 'outside.txt'))).toBe(false);
  });

  it('without the switch the same hook writes outside (so the test above can fail)', async () => {
    const { outside } = await runHook('plain', writer);
    expect(existsSync(join(outside, 'outside.txt'))).toBe(true);
  });

  it('reaches only its own allowlist, and says what was blocked', async () => {
    const { project } = await runHook(
      'network',
      `curl -sS http://allowed.test:${port}/ > ok.txt; curl -sS http://other.test:${port}/ > blocked.txt 2>&1`,
      {
        network: {
          allowedDomains: ['allowed.test'],
          hostOverrides: { 'allowed.test': '127.0.0.1', 'other.test': '127.0.0.1' },
        },
      },
    );
    expect(readFileSync(join(project, 'ok.txt'), 'utf8')).toBe(`hello allowed.test:${port}`);
    expect(readFileSync(join(project, 'blocked.txt'), 'utf8')).toContain(
      `efferent sandbox: network access to other.test:${port} was blocked`,
    );
  });
});
