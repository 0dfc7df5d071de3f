import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxProxy, splice } from './proxy.ts';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two connected sockets over a Unix socket in a temp folder: [the near end, the far end]. */
async function socketPair(server: Server, path: string): Promise<[Socket, Socket]> {
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const near = connect(path);
  await new Promise<void>((resolve) => near.once('connect', resolve));
  return [near, await accepted];
}

async function unixServer(): Promise<{ server: Server; path: string }> {
  const folder = mkdtempSync(join(tmpdir(), 'efferent-splice-'));
  const path = join(folder, 's.sock');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  cleanups.push(() => {
    server.close();
    rmSync(folder, { recursive: true, force: true });
  });
  return { server, path };
}

/** Reads a socket to its end, pausing `pauseMs` after each chunk; resolves with the byte count. */
function drain(socket: Socket, pauseMs: number): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    socket.on('data', (data: Buffer) => {
      bytes += data.length;
      socket.pause();
      setTimeout(() => socket.resume(), pauseMs);
    });
    socket.resume();
    socket.on('error', () => {});
    socket.once('close', () => resolve(bytes));
  });
}

describe('splice', () => {
  it('tears the other side down at once when one side fails', async () => {
    const { server, path } = await unixServer();
    const [client, clientFar] = await socketPair(server, path);
    const [upstream, upstreamFar] = await socketPair(server, path);
    clientFar.pause();
    client.write(Buffer.alloc(4 * 1024 * 1024, 'x'));
    splice(client, upstream);
    const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    upstream.on('error', () => {});
    upstream.destroy(new Error('the upstream failed'));
    upstreamFar.destroy();
    await clientClosed;
    expect(client.destroyed).toBe(true);
  });
});

describe('SandboxProxy', () => {
  it('delivers large downloads whole to a client that reads slowly', async () => {
    const size = 16 * 1024 * 1024;
    const http = createHttpServer((_request, response) => {
      response.setHeader('content-length', String(size));
      response.end(Buffer.alloc(size, 'y'));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => void http.close());
    const port = (http.address() as { port: number }).port;
    const proxy = await SandboxProxy.start({
      allowedDomains: ['big.test'],
      hostOverrides: { 'big.test': '127.0.0.1' },
    });
    cleanups.push(() => proxy.close());
    for (let attempt = 0; attempt < 3; attempt++) {
      const socket = connect(proxy.socketPath);
      socket.write(`GET http://big.test:${port}/ HTTP/1.1\r\nHost: big.test:${port}\r\n\r\n`);
      const bytes = await drain(socket, 1);
      // Body plus the response head.
      expect(bytes).toBeGreaterThan(size);
    }
  });
});
