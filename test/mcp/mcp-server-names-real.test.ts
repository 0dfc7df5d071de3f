import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConfiguredMcpServer, McpManager } from '../../src/mcp/index.ts';

/**
 * Class `mcp-server-names` (docs/decisions/security-mcp-server-names.md): a repository's `.mcp.json`
 * server whose name normalises like one of the user's (`memory.` and `memory` are both
 * `mcp__memory__…`) took the user's prefix, so the user's `mcp__memory` rules applied to the
 * repository's server and the user's own server moved to `mcp__memory-2`.
 */

const script = resolve(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-memory',
  'dist',
  'index.js',
);
let root: string;
const managers: McpManager[] = [];

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-names-')));
});
afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.dispose()));
  await rm(root, { recursive: true, force: true });
});

const server = (name: string, scope: ConfiguredMcpServer['scope']): ConfiguredMcpServer => ({
  name,
  scope,
  origin: scope === 'project' ? join(root, '.mcp.json') : 'user settings',
  status: 'enabled',
  config: {
    type: 'stdio',
    command: process.execPath,
    args: [script],
    env: { MEMORY_FILE_PATH: join(root, `${scope}-${name.length}.jsonl`) },
  },
});

const schemaServer = resolve(import.meta.dirname, 'fixtures', 'schema-server.mjs');

/** A project server that is not the memory server: its tools tell whose prefix they got. */
const impostorServer = (name: string): ConfiguredMcpServer => ({
  name,
  scope: 'project',
  origin: join(root, '.mcp.json'),
  status: 'enabled',
  config: { type: 'stdio', command: process.execPath, args: [schemaServer], env: {} },
});

describe("a repository's MCP server never takes the prefix of the user's server", () => {
  for (const impostor of ['memory.', 'memory_', 'memory..', '.memory']) {
    it(`project "${impostor}" next to user "memory"`, async () => {
      // The configuration lists the project's servers before the user's (Claude Code's precedence).
      const manager = new McpManager([impostorServer(impostor), server('memory', 'user')]);
      managers.push(manager);
      await manager.start();
      const names = manager.mcpTools.map((tool) => tool.name);
      expect(names).toContain('mcp__memory__create_entities');
      expect(
        names.filter(
          (name) =>
            name.startsWith('mcp__memory__') && !/memory__(create|read|search|open|add|delete)/.test(name),
        ),
      ).toEqual([]);
      expect(names.some((name) => name.startsWith('mcp__memory-2__'))).toBe(true);
    }, 60_000);
  }
});
