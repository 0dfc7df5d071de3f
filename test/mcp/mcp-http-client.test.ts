// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} strings are expanded by the loader under test
import { createServer, type Server as HttpServer } from 'node:http';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import { loadMcpConfiguration, McpManager, type RunningHttpServer, serveHttp } from '../../src/mcp/index.ts';

let root: string;
let project: string;
let served: RunningHttpServer;
let legacy: HttpServer;
let legacyUrl: string;

/** A legacy MCP server that speaks only HTTP+SSE (the SDK's SSEServerTransport). */
function startLegacySseServer(): Promise<HttpServer> {
  const transports = new Map<string, SSEServerTransport>();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      const server = new Server({ name: 'legacy', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          { name: 'hello', description: 'Says hello.', inputSchema: { type: 'object', properties: {} } },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async () => ({
        content: [{ type: 'text', text: 'hello over SSE' }],
      }));
      await server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '');
      if (transport) return transport.handlePostMessage(req, res);
    }
    // Anything else (a streamable HTTP POST to /sse, say) is what an old server answers: 405.
    res.writeHead(405).end();
  });
  return new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(http)));
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-http-')));
  project = join(root, 'project');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'a.txt'), 'served over http\n');
  served = await serveHttp({
    port: 0,
    token: 'secret-token',
    createSession: (askUser) =>
      createSession({ cwd: project, home: join(root, 'home'), trusted: false, askUser }),
  });
  legacy = await startLegacySseServer();
  legacyUrl = `http://127.0.0.1:${(legacy.address() as AddressInfo).port}/sse`;
});
afterAll(async () => {
  await served.close();
  legacy.closeAllConnections();
  await new Promise((resolve) => legacy.close(resolve));
  await rm(root, { recursive: true, force: true });
});

describe('MCP client over HTTP', () => {
  it('connects over streamable HTTP with headers from ${VAR} expansion (efferent serving efferent)', async () => {
    const configuration = await loadMcpConfiguration({
      projectRoot: project,
      home: join(root, 'home'),
      trusted: false,
      strict: true,
      cliConfigs: [
        JSON.stringify({
          mcpServers: {
            efferent: {
              type: 'http',
              url: served.url,
              headers: { Authorization: 'Bearer ${EFFERENT_TOKEN}' },
            },
          },
        }),
      ],
      env: { EFFERENT_TOKEN: 'secret-token' },
    });
    const manager = new McpManager(configuration.servers);
    await manager.start();
    try {
      expect(manager.connections[0]?.status).toBe('connected');
      const names = manager.mcpTools.map((tool) => tool.name);
      expect(names).toContain('mcp__efferent__Read');
      const read = manager.mcpTools.find((tool) => tool.name === 'mcp__efferent__Read');
      expect(read?.isReadOnly({})).toBe(true);
      const result = await manager.connections[0]?.callTool('Read', { file_path: join(project, 'a.txt') });
      expect(JSON.stringify(result?.content)).toContain('served over http');
    } finally {
      await manager.dispose();
    }
  });

  it('a wrong token fails that server with a reason, not the session', async () => {
    const manager = new McpManager([
      {
        name: 'bad',
        scope: 'cli',
        origin: 'test',
        status: 'enabled',
        config: { type: 'http', url: served.url, headers: { Authorization: 'Bearer nope' } },
      },
    ]);
    await manager.start();
    expect(manager.connections[0]?.status).toBe('failed');
    expect(manager.failures[0]).toMatch(/"bad" failed to start/);
    await manager.dispose();
  });

  it('falls back to legacy SSE when streamable HTTP fails, and a session calls the tool', async () => {
    const manager = new McpManager([
      {
        name: 'legacy',
        scope: 'cli',
        origin: 'test',
        status: 'enabled',
        config: { type: 'http', url: legacyUrl, headers: {} },
      },
    ]);
    await manager.start();
    expect(manager.connections[0]?.status).toBe('connected');
    const session = await createSession({
      cwd: project,
      home: join(root, 'home'),
      trusted: false,
      extraTools: manager.tools,
      cli: { allowedTools: ['mcp__legacy'] },
    });
    try {
      const result = await session.callTool('mcp__legacy__hello', {});
      expect(toolResultText(result)).toContain('hello over SSE');
    } finally {
      await session.dispose();
      await manager.dispose();
    }
  });
});
