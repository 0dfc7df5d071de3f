import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultModels } from '../../src/cli/terminal/resolve-provider.ts';
import { anthropicSse, type LoopbackServer, type Reply, startLoopbackServer } from '../providers/loopback.ts';
import { runEfferent } from './run-efferent.ts';

let workspace: string;
/** The user's home: a folder of its own, since a home inside the project is refused as one it chose. */
let home: string;
let server: LoopbackServer | undefined;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'efferent-retry-'));
  home = await mkdtemp(join(tmpdir(), 'efferent-home-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const overloaded: Reply = {
  status: 529,
  headers: { 'retry-after-ms': '1' },
  body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
};

function run(args: string[], env: Record<string, string> = {}) {
  return runEfferent(
    [
      'run',
      '--cwd',
      workspace,
      '--model',
      'anthropic:claude-sonnet-4-5',
      '-p',
      'hi',
      '--output-format',
      'json',
      ...args,
    ],
    workspace,
    home,
    { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server?.url ?? '', ...env },
  );
}

describe('efferent run: retries and limits', { timeout: 60_000 }, () => {
  it('retries an overloaded API and succeeds; --max-retries caps the attempts', async () => {
    server = await startLoopbackServer([
      overloaded,
      overloaded,
      overloaded,
      { chunks: anthropicSse({ text: 'Up again.' }) },
    ]);
    const ok = await run([]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ result: 'Up again.', is_error: false });
    expect(server.requests).toHaveLength(4);
    await server.close();

    server = await startLoopbackServer([
      overloaded,
      overloaded,
      overloaded,
      { chunks: anthropicSse({ text: 'Up again.' }) },
    ]);
    const capped = await run(['--max-retries', '1']);
    expect(capped.code).toBe(1);
    expect(JSON.parse(capped.stdout)).toMatchObject({
      is_error: true,
      error: expect.stringContaining('Overloaded'),
    });
    expect(server.requests).toHaveLength(2);
  });

  it('EFFERENT_MAX_RETRIES sets the retries; a bad value is a clear usage error', async () => {
    server = await startLoopbackServer([overloaded, overloaded, { chunks: anthropicSse({ text: 'Up.' }) }]);
    const none = await run([], { EFFERENT_MAX_RETRIES: '0' });
    expect(none.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    const bad = await run(['--max-retries', 'many']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--max-retries must be a whole number (0 or more), not "many".');
  });

  it('--max-tokens sets the output limit of each request', async () => {
    server = await startLoopbackServer([{ chunks: anthropicSse({ text: 'Short.' }) }]);
    const done = await run(['--max-tokens', '1234']);
    expect(done.code).toBe(0);
    expect(server.requests[0]?.body['max_tokens']).toBe(1234);
  });

  it('the default Anthropic model is one the SDK does not list as deprecated', async () => {
    const require = createRequire(import.meta.url);
    const sdk = dirname(require.resolve('@anthropic-ai/sdk'));
    const deprecated = await readFile(join(sdk, 'internal/data/deprecated-models.js'), 'utf8');
    expect(deprecated).toContain("'claude-sonnet-4-5'");
    expect(deprecated).not.toContain(`'${defaultModels.anthropic}'`);
  });
});
