import { getEventListeners } from 'node:events';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import { attachMcpToSession, McpManager } from '../../src/mcp/index.ts';

// What an MCP call through a session allocates per call that outlives it or costs more than the call
// needs, counted rather than timed (the timing is bench/mcp.ts's).
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
let session: Session;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-cost-')));
  const manager = new McpManager([
    {
      name: 'memory',
      scope: 'cli',
      origin: 'test',
      status: 'enabled',
      config: {
        type: 'stdio',
        command: process.execPath,
        args: [script],
        env: { MEMORY_FILE_PATH: join(root, 'memory.jsonl') },
      },
    },
  ]);
  await manager.start();
  session = await createSession({
    cwd: root,
    home: join(root, 'home'),
    trusted: false,
    extraTools: manager.tools,
    cli: { allowedTools: ['mcp__memory'] },
  });
  attachMcpToSession(manager, session);
});
afterAll(async () => {
  await session?.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('an MCP call through a session', { timeout: 60_000 }, () => {
  it('creates no AbortController and leaves no listener on the session signal', async () => {
    const Original = globalThis.AbortController;
    let created = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        created += 1;
      }
    };
    try {
      for (let call = 0; call < 5; call++) {
        const result = await session.callTool('mcp__memory__read_graph', {});
        expect(result.isError).toBeFalsy();
        expect(toolResultText(result)).toContain('"entities"');
      }
    } finally {
      globalThis.AbortController = Original;
    }
    expect(created).toBe(0);
    expect(getEventListeners(session.context.run.abortController.signal, 'abort')).toHaveLength(0);
  });
});
