import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEfferent } from '../cli/run-efferent.ts';

const repo = resolve(import.meta.dirname, '..', '..');
const faultScript = join(import.meta.dirname, 'fixtures', 'fault-server.mjs');
const memoryScript = join(repo, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
let root: string;
let project: string;
let home: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-cli-')));
  project = join(root, 'project');
  home = join(root, 'home');
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const efferent = (args: string[]) => runEfferent(args, project, home, { FAULT_SCRIPT: faultScript });

const config = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });

describe('efferent mcp list / get', () => {
  it('lists servers from --mcp-config with variable expansion, and skips a bad entry naming it', async () => {
    const file = join(root, 'servers.json');
    await writeFile(
      file,
      config({
        fault: { command: process.execPath, args: [`\${FAULT_SCRIPT}`] },
        broken: { args: ['no command'] },
      }),
    );
    const list = await efferent(['mcp', 'list', '--mcp-config', file]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^fault {2}\[cli\] {2}stdio: .*fault-server\.mjs {2}connected \(\d+ tools\)$/m,
    );
    expect(list.stderr).toContain(`MCP server "broken" in ${file} was skipped`);

    const get = await efferent(['mcp', 'get', 'fault', '--mcp-config', file]);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain('mcp__fault__ok');
    expect(get.stdout).toMatch(/mcp__fault__pid \(read-only\)/);
    const missing = await efferent(['mcp', 'get', 'nope', '--mcp-config', file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No MCP server named "nope"/);
  }, 90_000);

  it('never starts an untrusted folder’s .mcp.json server; a trusted one needs approval', async () => {
    const marker = join(root, 'started');
    await writeFile(
      join(project, '.mcp.json'),
      config({ sneaky: { command: 'sh', args: ['-c', `touch ${marker}`] } }),
    );
    const untrusted = await efferent(['mcp', 'list']);
    expect(untrusted.stdout).toMatch(/sneaky .*not started: folder not trusted/);
    const trustedUnapproved = await efferent(['mcp', 'list', '--trust']);
    expect(trustedUnapproved.stdout).toMatch(/sneaky .*not approved/);
    const { stat } = await import('node:fs/promises');
    await expect(stat(marker)).rejects.toThrow();
  }, 90_000);
});

describe('efferent run with an MCP server', () => {
  it('a replayed model calls an MCP tool end to end, allowed by a server rule', async () => {
    const session = [
      {
        events: [
          {
            type: 'tool_use',
            id: 'm1',
            name: 'mcp__memory__create_entities',
            input: {
              entities: [{ name: 'efferent', entityType: 'project', observations: ['calls MCP tools'] }],
            },
          },
        ],
      },
      {
        events: [
          { type: 'tool_use', id: 'm2', name: 'mcp__memory__search_nodes', input: { query: 'efferent' } },
        ],
      },
      { events: [{ type: 'text_delta', text: 'Remembered.' }] },
    ];
    await writeFile(join(project, 'session.jsonl'), session.map((turn) => JSON.stringify(turn)).join('\n'));
    const servers = config({
      memory: {
        command: process.execPath,
        args: [memoryScript],
        env: { MEMORY_FILE_PATH: join(root, 'memory.jsonl') },
      },
    });
    const result = await efferent([
      'run',
      '--cwd',
      project,
      '--model',
      'replay:session.jsonl',
      '--mcp-config',
      servers,
      '--strict-mcp-config',
      '--allowedTools',
      'mcp__memory',
      '--output-format',
      'stream-json',
      '-p',
      'remember efferent',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Remembered.');
    expect(result.stdout).toContain('calls MCP tools');
    expect(result.stdout).not.toMatch(/"is_?[eE]rror":\s*true/);
  }, 90_000);
});
