import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicSse, type LoopbackServer, startLoopbackServer } from '../providers/loopback.ts';
import { runEfferent } from './run-efferent.ts';

/**
 * `prompt` hooks through real `efferent run` and `efferent call` processes: the model behind an
 * Anthropic-protocol loopback server (reached by the official SDK) decides the hooks as well as the turns.
 */

let root: string;
let home: string;
let project: string;
let server: LoopbackServer | undefined;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-prompt-hooks-')));
  home = join(root, 'home');
  project = join(root, 'project');
  await mkdir(join(home, '.efferent'), { recursive: true });
  await mkdir(project);
  await writeFile(join(project, 'notes.txt'), 'keep me\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(root, { recursive: true, force: true });
});

const hookRequest = (body: string) => body.includes('You decide for a hook');
const answer = (value: unknown) => ({ chunks: anthropicSse({ text: JSON.stringify(value) }) });

describe('prompt hooks', () => {
  it('a prompt hook denies a tool call and sends the agent back from a stop, through the session provider', {
    timeout: 120_000,
  }, async () => {
    let stops = 0;
    let turns = 0;
    server = await startLoopbackServer((request) => {
      const body = JSON.stringify(request.body);
      if (hookRequest(body)) {
        if (body.includes('\\"hook_event_name\\":\\"PreToolUse\\"'))
          return answer({ ok: false, reason: 'deleting notes is not allowed' });
        stops += 1;
        return stops === 1 ? answer({ ok: false, reason: 'say goodbye first' }) : answer({ ok: true });
      }
      turns += 1;
      if (turns === 1)
        return {
          chunks: anthropicSse({
            toolCalls: [{ id: 'toolu_rm', name: 'Bash', input: { command: 'rm -f notes.txt' } }],
          }),
        };
      return { chunks: anthropicSse({ text: turns === 2 ? 'Done.' : 'Goodbye.' }) };
    });
    await writeFile(
      join(home, '.efferent', 'settings.json'),
      JSON.stringify({
        permissions: { allow: ['Bash'] },
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'prompt', prompt: 'Is this command safe? $ARGUMENTS', timeout: 20 }],
            },
          ],
          Stop: [{ hooks: [{ type: 'prompt', prompt: 'Has the agent said goodbye?' }] }],
        },
      }),
    );
    const result = await runEfferent(
      ['run', '-p', 'clean up', '--cwd', project, '--model', 'anthropic:claude-sonnet-4-5'],
      project,
      home,
      {
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: server.url,
        EFFERENT_MANAGED_SETTINGS: join(root, 'no-policy.json'),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Goodbye.');
    // The hook's verdict kept the file.
    expect(await readFile(join(project, 'notes.txt'), 'utf8')).toBe('keep me\n');
    const bodies = server.requests.map((request) => JSON.stringify(request.body));
    const preToolUse = bodies.find((body) => hookRequest(body) && body.includes('PreToolUse'));
    // $ARGUMENTS became the hook input JSON; a prompt without it gets the input appended.
    expect(preToolUse).toContain('Is this command safe? {');
    expect(preToolUse).toContain('rm -f notes.txt');
    expect(
      bodies.filter((body) => hookRequest(body) && body.includes('Has the agent said goodbye?')),
    ).toHaveLength(2);
    // The denial reason reached the model with the tool result, the stop reason as the next message.
    const third = bodies.filter((body) => !hookRequest(body))[1] ?? '';
    expect(third).toContain('deleting notes is not allowed');
    expect(bodies.filter((body) => !hookRequest(body)).at(-1)).toContain('say goodbye first');
  });

  it('without a model (efferent call) a PreToolUse prompt hook asks instead, with a warning', {
    timeout: 120_000,
  }, async () => {
    await writeFile(
      join(home, '.efferent', 'settings.json'),
      JSON.stringify({
        permissions: { allow: ['Bash'] },
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Is this safe? $ARGUMENTS' }] }],
        },
      }),
    );
    const result = await runEfferent(
      ['call', 'Bash', JSON.stringify({ command: 'rm -f notes.txt' }), '--cwd', project],
      project,
      home,
      { EFFERENT_MANAGED_SETTINGS: join(root, 'no-policy.json') },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^notice: prompt hooks \(PreToolUse\) need a model/m);
    // The call was asked about (nobody can answer in `call`), naming the hook.
    expect(result.stdout).toContain('prompt hook "Is this safe? $ARGUMENTS" asked for approval');
    expect(await readFile(join(project, 'notes.txt'), 'utf8')).toBe('keep me\n');
  });
});
