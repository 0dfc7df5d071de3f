import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../../src/agent/index.ts';
import { createEventRenderer, mcpProgressLine } from '../../src/cli/terminal/render-events.ts';
import { attachMcpToSession, McpConnection, McpManager } from '../../src/mcp/index.ts';

const everything = resolve(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-progress-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('MCP progress in the terminal', () => {
  it('formats counts with and without a total', () => {
    expect(mcpProgressLine({ progress: 2, total: 5, message: 'indexing' })).toBe('2/5 (40%) indexing');
    expect(mcpProgressLine({ progress: 7 })).toBe('7');
  });

  it("a real server's progress notifications become lines under the running call", async () => {
    const manager = new McpManager([
      {
        name: 'everything',
        scope: 'cli',
        origin: 'test',
        status: 'enabled',
        config: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'], env: {} },
      },
    ]);
    await manager.start();
    const session = await createSession({
      cwd: root,
      home: join(root, 'home'),
      trusted: false,
      extraTools: manager.tools,
      cli: { allowedTools: ['mcp__everything'] },
    });
    attachMcpToSession(manager, session);
    try {
      const output = new PassThrough();
      let text = '';
      output.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      const render = createEventRenderer(output);
      render({
        type: 'tool_started',
        toolUseId: 'p1',
        name: 'mcp__everything__trigger-long-running-operation',
        at: 0,
      });
      const result = await session.callTool(
        'mcp__everything__trigger-long-running-operation',
        { duration: 1, steps: 3 },
        { onProgress: (data) => render({ type: 'tool_progress', toolUseId: 'p1', data, at: 0 }) },
      );
      expect(result.isError).toBeFalsy();
      await new Promise((done) => setImmediate(done));
      const lines = text.split('\n').filter((line) => line.includes('…'));
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines.at(-1)).toMatch(/… 3\/3 \(100%\)/);
    } finally {
      await session.dispose();
    }
  }, 60_000);

  it('delivers every progress a server sends before its result, even when all arrive in one read', async () => {
    const server = resolve(import.meta.dirname, 'fixtures', 'progress-burst-server.mjs');
    const connection = new McpConnection('burst', {
      type: 'stdio',
      command: process.execPath,
      args: [server],
      env: {},
    });
    await connection.connect();
    try {
      for (let round = 0; round < 5; round++) {
        const seen: string[] = [];
        const result = await connection.callTool(
          'burst',
          {},
          { onProgress: (p) => seen.push(`${p.progress}/${p.total} ${p.message}`) },
        );
        seen.push('result');
        expect(result.isError).toBeFalsy();
        expect(seen).toEqual(['1/3 step 1', '2/3 step 2', '3/3 step 3', 'result']);
      }
    } finally {
      await connection.close();
    }
  }, 30_000);
});
