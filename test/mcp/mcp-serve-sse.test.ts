import { request } from 'node:http';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import { McpManager, type RunningHttpServer, serveHttp } from '../../src/mcp/index.ts';

const TOKEN = 'sse-token-456';
let root: string;
let project: string;
let home: string;
let running: RunningHttpServer;
let disposed = 0;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-serve-sse-')));
  project = join(root, 'project');
  home = join(root, 'home');
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(join(project, 'old.txt'), 'read over the old transport\n');
  running = await serveHttp({
    port: 0,
    token: TOKEN,
    createSession: async (askUser) => {
      const session = await createSession({ cwd: project, home, trusted: false, askUser });
      return {
        ...session,
        dispose: async () => {
          disposed += 1;
          await session.dispose();
        },
      };
    },
  });
});
afterAll(async () => {
  await running.close();
  await rm(root, { recursive: true, force: true });
});

const text = (result: object) =>
  (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>)
    .map((part) => part.text ?? '')
    .join('\n');

/** A raw request, so the Host header can be anything (fetch always sends the real one). */
function rawStatus(
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): Promise<number> {
  const port = new URL(running.url).port;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens GET /sse by hand and returns the message endpoint the server names, and a way to close. */
async function openStream(): Promise<{ endpoint: string; close: () => void }> {
  const controller = new AbortController();
  const response = await fetch(running.sseUrl, {
    headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  while (!/event: endpoint\ndata: .*\n/.test(buffered)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before the endpoint event: ${buffered}`);
    buffered += decoder.decode(value, { stream: true });
  }
  const endpoint = /event: endpoint\ndata: (.*)\n/.exec(buffered)?.[1] ?? '';
  return { endpoint, close: () => controller.abort() };
}

describe('efferent mcp serve --http over the legacy HTTP+SSE transport', () => {
  it('serves the official SDK SSE client: lists, calls, and disposes the session when the stream closes', async () => {
    const transport = new SSEClientTransport(new URL(running.sseUrl), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    const client = new Client({ name: 'old-client', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['Bash', 'Read', 'Grep']));
    expect(tools.find((tool) => tool.name === 'Read')?.annotations?.readOnlyHint).toBe(true);
    const read = await client.callTool({ name: 'Read', arguments: { file_path: join(project, 'old.txt') } });
    expect(read.isError).toBeFalsy();
    expect(text(read)).toContain('read over the old transport');
    // Asks still fail closed: this client has no elicitation, so the call is denied with the rule.
    const write = await client.callTool({
      name: 'Write',
      arguments: { file_path: join(project, 'new.txt'), content: 'x' },
    });
    expect(write.isError).toBe(true);
    expect(text(write)).toMatch(/cannot be asked.*permissions\.allow/s);
    expect(running.sessions()).toBe(1);
    const before = disposed;
    await client.close();
    await expect.poll(() => disposed, { timeout: 5_000 }).toBe(before + 1);
    await expect.poll(() => running.sessions(), { timeout: 5_000 }).toBe(0);
  });

  it("efferent's own client configured type sse uses the served tools through a session", async () => {
    const manager = new McpManager([
      {
        name: 'served',
        scope: 'cli',
        origin: 'test',
        status: 'enabled',
        config: { type: 'sse', url: running.sseUrl, headers: { Authorization: `Bearer ${TOKEN}` } },
      },
    ]);
    await manager.start();
    expect(manager.connections[0]?.status).toBe('connected');
    const session = await createSession({
      cwd: project,
      home,
      trusted: false,
      extraTools: manager.tools,
      cli: { allowedTools: ['mcp__served__Read'] },
    });
    try {
      const result = await session.callTool('mcp__served__Read', { file_path: join(project, 'old.txt') });
      expect(result.isError).toBeFalsy();
      expect(toolResultText(result)).toContain('read over the old transport');
    } finally {
      await session.dispose();
      await manager.dispose();
    }
    await expect.poll(() => running.sessions(), { timeout: 5_000 }).toBe(0);
  });

  it('checks the bearer token, Host and Origin on the stream and on every message', async () => {
    const port = new URL(running.url).port;
    const good = { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` };
    expect(await rawStatus('GET', '/sse', { host: good.host })).toBe(401);
    expect(await rawStatus('GET', '/sse', { ...good, authorization: 'Bearer wrong' })).toBe(401);
    expect(await rawStatus('GET', '/sse', { ...good, origin: 'http://evil.example' })).toBe(403);
    expect(await rawStatus('GET', '/sse', { ...good, host: `evil.example:${port}` })).toBe(403);

    const stream = await openStream();
    try {
      expect(stream.endpoint).toMatch(/^\/messages\?sessionId=[0-9a-f-]{36}$/);
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const json = { 'content-type': 'application/json' };
      expect(await rawStatus('POST', stream.endpoint, { ...json, host: good.host }, ping)).toBe(401);
      expect(
        await rawStatus('POST', stream.endpoint, { ...json, ...good, origin: 'http://evil.example' }, ping),
      ).toBe(403);
      expect(
        await rawStatus('POST', stream.endpoint, { ...json, ...good, host: `evil.example:${port}` }, ping),
      ).toBe(403);
      expect(await rawStatus('POST', '/messages?sessionId=not-a-session', { ...json, ...good }, ping)).toBe(
        404,
      );
      expect(
        await rawStatus(
          'POST',
          stream.endpoint,
          { ...json, ...good, origin: `http://127.0.0.1:${port}` },
          ping,
        ),
      ).toBe(202);
    } finally {
      stream.close();
    }
    await expect.poll(() => running.sessions(), { timeout: 5_000 }).toBe(0);
  });
});
