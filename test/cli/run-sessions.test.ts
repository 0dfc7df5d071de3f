import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicSse, type LoopbackServer, startLoopbackServer } from '../providers/loopback.ts';
import { runEfferent } from './run-efferent.ts';

let root: string;
let workspace: string;
let config: string;
let temp: string;
let server: LoopbackServer | undefined;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'efferent-sessions-'));
  workspace = join(root, 'project');
  config = join(root, 'config');
  temp = join(root, 'tmp');
  await Promise.all([mkdir(workspace), mkdir(temp)]);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(root, { recursive: true, force: true });
});

function run(args: string[]) {
  return runEfferent(
    ['run', '--cwd', workspace, '--model', 'anthropic:claude-sonnet-4-5', '--output-format', 'json', ...args],
    workspace,
    root,
    {
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: server?.url ?? '',
      EFFERENT_CONFIG_DIR: config,
      TMPDIR: temp,
    },
  );
}

const projectDir = () => join(config, 'projects', workspace.replace(/[^a-zA-Z0-9]/g, '-'));

describe('efferent run: saved sessions', { timeout: 90_000 }, () => {
  it('saves a JSONL transcript per session; --continue and --resume ID carry the conversation on', async () => {
    server = await startLoopbackServer([
      { chunks: anthropicSse({ text: 'The code word is lighthouse.' }) },
      { chunks: anthropicSse({ text: 'You asked for the code word.' }) },
      { chunks: anthropicSse({ text: 'Still lighthouse.' }) },
    ]);
    const first = await run(['-p', 'remember a code word']);
    expect(first.code).toBe(0);
    const firstId = JSON.parse(first.stdout).session_id as string;
    const path = join(projectDir(), `${firstId}.jsonl`);
    const lines = (await readFile(path, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.type, line.message.content[0].text])).toEqual([
      ['user', 'remember a code word'],
      ['assistant', 'The code word is lighthouse.'],
    ]);
    expect(lines[1]).toMatchObject({ sessionId: firstId, cwd: workspace, parentUuid: lines[0].uuid });

    const second = await run(['-p', 'what did I ask?', '--continue']);
    expect(second.code).toBe(0);
    const sent = server.requests[1]?.body['messages'] as Array<{
      role: string;
      content: Array<{ text?: string }>;
    }>;
    expect(sent.map((message) => message.content[0]?.text)).toEqual([
      'remember a code word',
      'The code word is lighthouse.',
      'what did I ask?',
    ]);

    const third = await run(['-p', 'and now?', '--resume', firstId]);
    expect(third.code).toBe(0);
    const resumed = server.requests[2]?.body['messages'] as unknown[];
    expect(resumed).toHaveLength(3);
    expect(await readdir(projectDir())).toHaveLength(3);

    const missing = await run(['-p', 'x', '--resume', 'no-such-session']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--resume without an id');
  });

  it("removes the session's folder under the temporary directory on exit", async () => {
    server = await startLoopbackServer([
      {
        chunks: anthropicSse({ toolCalls: [{ id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }] }),
      },
      { chunks: anthropicSse({ text: 'Ran it.' }) },
    ]);
    await writeFile(join(workspace, 'x.txt'), 'x');
    const done = await run(['-p', 'run echo', '--allowedTools', 'Bash']);
    expect(done.code).toBe(0);
    const record = JSON.parse(done.stdout);
    expect(record.result).toBe('Ran it.');
    expect(existsSync(join(temp, 'efferent', record.session_id))).toBe(false);
  });
});
