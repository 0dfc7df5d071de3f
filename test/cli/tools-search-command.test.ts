import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEfferent } from './run-efferent.ts';

const bin = resolve(import.meta.dirname, '..', '..', 'bin', 'efferent.js');
let dir: string;
let catalog: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'efferent-tools-search-'));
  catalog = join(dir, 'catalog.json');
  await writeFile(
    catalog,
    JSON.stringify([
      {
        server: 'slack',
        name: 'slack_post_message',
        description: 'Post a new message to a Slack channel',
        inputSchema: {
          type: 'object',
          properties: { channel_id: { type: 'string' }, text: { type: 'string' } },
        },
      },
      {
        server: 'slack',
        name: 'slack_list_channels',
        description: 'List public channels in the workspace',
        inputSchema: { type: 'object' },
      },
      {
        server: 'github',
        name: 'create_issue',
        description: 'Create a new issue in a GitHub repository',
        inputSchema: { type: 'object' },
      },
      { name: 'plain_tool', description: 'A tool without a server', inputSchema: { type: 'object' } },
    ]),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function jsonl(args: string[], input: string): Promise<string> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      env: { PATH: process.env['PATH'], HOME: dir, NO_COLOR: '1' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stdin.end(input);
    child.on('close', () => done(stdout));
  });
}

// Each case starts the real CLI several times; on a loaded machine that takes a while.
describe('efferent tools search', { timeout: 120_000 }, () => {
  it('ranks a catalog, qualifying names with their server', async () => {
    const run = await runEfferent(
      ['tools', 'search', 'send a slack message', '--catalog', catalog, '--limit', '1', '--json'],
      dir,
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      matches: ['mcp__slack__slack_post_message'],
      kind: 'keywords',
      unknown: [],
    });
    const human = await runEfferent(['tools', 'search', 'mcp__slack', '--catalog', catalog], dir);
    expect(human.stdout).toBe(
      '1. mcp__slack__slack_list_channels  List public channels in the workspace\n2. mcp__slack__slack_post_message  Post a new message to a Slack channel\n',
    );
  });

  it('answers one JSON line per query line, and a bad line with an error line', async () => {
    const out = await jsonl(
      ['tools', 'search', '--jsonl', '--catalog', catalog],
      '{"query": "new ticket on github", "limit": 1}\n{"query": "select:plain_tool,create_issue"}\n\n{"limit": 2}\n',
    );
    const lines = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({ matches: ['mcp__github__create_issue'] });
    expect(lines[1]).toEqual({ matches: ['plain_tool'] });
    expect(lines[2].error).toMatch(/non-empty string "query"\. Send \{"query": "\.\.\.", "limit": 5\}\.$/);
    expect(lines).toHaveLength(3);
  });

  it('searches the built-in pool without a catalog, and explains bad input', async () => {
    const pool = await runEfferent(['tools', 'search', 'jupyter notebook cell', '--limit', '1'], dir);
    expect(pool.stdout).toMatch(/^1\. NotebookEdit /);
    const missing = await runEfferent(['tools', 'search', 'x', '--catalog', join(dir, 'nope.json')], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot read the catalog');
    await writeFile(join(dir, 'bad.json'), '{"tools": 3}');
    const bad = await runEfferent(['tools', 'search', 'x', '--catalog', join(dir, 'bad.json')], dir);
    expect(bad.stderr).toMatch(/must be a JSON array of \{name, description, inputSchema\} entries .*\.\n$/);
    const limit = await runEfferent(['tools', 'search', 'x', '--limit', 'many'], dir);
    expect(limit.stderr).toContain('--limit must be a whole number from 1 to 1000.');
  });
});
