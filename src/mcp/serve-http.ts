import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createEfferentMcpServer, type ServeOptions } from './serve.ts';

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions extends ServeOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** The bearer token clients must send; default a fresh random one. */
  token?: string;
}

/** A running HTTP server. */
export interface RunningHttpServer {
  /** The streamable HTTP endpoint (`/mcp`). */
  url: string;
  /** The legacy HTTP+SSE endpoint (2024-11-05 transport): GET it for the stream, POST to the `endpoint` it names. */
  sseUrl: string;
  token: string;
  /** Open MCP sessions over either transport (each with its own efferent session). */
  sessions: () => number;
  close(): Promise<void>;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readBody(req: IncomingMessage, limit = 4 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/** One MCP session over the legacy HTTP+SSE transport: its stream and its efferent session. */
interface SseSession {
  transport: SSEServerTransport;
  close: () => Promise<void>;
}

/**
 * `GET /sse`: opens a legacy HTTP+SSE session (protocol 2024-11-05). The SDK's transport sends the
 * `endpoint` event naming `/messages?sessionId=…`; the session lives as long as the stream.
 */
async function openSseSession(
  options: ServeOptions,
  res: ServerResponse,
  sessions: Map<string, SseSession>,
): Promise<void> {
  const served = createEfferentMcpServer(options);
  const transport = new SSEServerTransport('/messages', res);
  let ended = false;
  // The stream closing, the client going away and server.close() all land here; closing the
  // efferent server closes the transport again, so the guard keeps this to one pass.
  transport.onclose = () => {
    if (ended) return;
    ended = true;
    sessions.delete(transport.sessionId);
    void served.close();
  };
  sessions.set(transport.sessionId, { transport, close: served.close });
  await served.server.connect(transport);
}

/**
 * `efferent mcp serve --http`: streamable HTTP (`/mcp`) and, for clients that still speak the
 * 2024-11-05 transport, HTTP+SSE (`GET /sse`, `POST /messages?sessionId=…`) on one port of 127.0.0.1.
 * Every request to either needs the bearer token; the Host header must name the loopback address
 * and an Origin header, when sent, must be a loopback origin (DNS-rebinding protection). Each MCP
 * session gets its own efferent session, disposed when the client deletes the session (streamable
 * HTTP), closes its stream (SSE), or the server closes.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<RunningHttpServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport; close: () => Promise<void> }
  >();
  const sseSessions = new Map<string, SseSession>();
  let port = options.port;
  const loopbackHosts = () => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];

  const handleStreamable = async (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = await readBody(req);
      } catch (error) {
        return reply(res, 400, `The request body is not valid JSON (${(error as Error).message}).`);
      }
      if (existing) return existing.transport.handleRequest(req, res, body);
      if (sessionId !== undefined)
        return reply(res, 404, 'Unknown or expired MCP session; initialize again.');
      if (!isInitializeRequest(body)) return reply(res, 400, 'Start with an initialize request.');
      const served = createEfferentMcpServer(options);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, close: served.close });
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
        void served.close();
      };
      await served.server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (!existing) return reply(res, 404, 'Unknown or expired MCP session; initialize again.');
    return existing.transport.handleRequest(req, res);
  };

  const handleSseMessage = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method !== 'POST')
      return reply(res, 405, 'POST JSON-RPC messages to /messages?sessionId=ID (GET /sse gives the ID).');
    const session = sseSessions.get(url.searchParams.get('sessionId') ?? '');
    if (!session) return reply(res, 404, 'Unknown or expired SSE session; open a new stream with GET /sse.');
    let body: unknown;
    try {
      body = await readBody(req);
    } catch (error) {
      return reply(res, 400, `The request body is not valid JSON (${(error as Error).message}).`);
    }
    return session.transport.handlePostMessage(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const host = req.headers.host ?? '';
    if (!loopbackHosts().includes(host)) return reply(res, 403, `Host ${host || '(none)'} is not allowed.`);
    const origin = req.headers.origin;
    if (origin !== undefined && !loopbackHosts().some((allowed) => origin === `http://${allowed}`)) {
      return reply(res, 403, `Origin ${origin} is not allowed.`);
    }
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !sameToken(auth.slice(7), token)) {
      res.setHeader('www-authenticate', 'Bearer');
      return reply(res, 401, 'A valid bearer token is required (Authorization: Bearer TOKEN).');
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname === '/mcp') return handleStreamable(req, res);
    if (url.pathname === '/messages') return handleSseMessage(req, res, url);
    if (url.pathname === '/sse') {
      if (req.method !== 'GET')
        return reply(res, 405, 'Open the SSE stream with GET /sse; send messages to the endpoint it names.');
      return openSseSession(options, res, sseSessions);
    }
    return reply(
      res,
      404,
      'The MCP endpoint is /mcp (streamable HTTP); clients of the older HTTP+SSE transport use /sse.',
    );
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `efferent failed: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, '127.0.0.1', () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    token,
    sessions: () => sessions.size + sseSessions.size,
    async close() {
      const open = [...sessions.values(), ...sseSessions.values()];
      await Promise.allSettled(open.map((entry) => entry.close()));
      sessions.clear();
      sseSessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
