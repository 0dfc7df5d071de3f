import type { ChildProcess } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer, isIP, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  blockedLine,
  CompiledNetworkPolicy,
  isPrivateAddress,
  type NetworkPolicy,
  normaliseHostName,
} from './network-policy.ts';

/**
 * The host side of a sandboxed command's network: one server on a Unix socket in a private folder
 * that speaks both HTTP proxy (CONNECT for TLS and anything else, absolute-form requests for plain
 * HTTP) and SOCKS5 (CONNECT), told apart by the first byte. Every connection is checked against the
 * policy by name, then resolved, and refused when the name resolves only to private, loopback or
 * link-local addresses; efferent connects to the address it checked, so a second DNS answer cannot
 * redirect it. Blocked attempts are kept for the tool result and reported to the command's relay.
 */

/** How long connecting to an upstream may take (ms). */
const connectTimeoutMs = 10_000;
/** The largest HTTP request head accepted (bytes). */
const maxHeadBytes = 64 * 1024;

/** Resolves a host name to addresses (default: the system resolver). */
export type HostResolver = (host: string) => Promise<string[]>;

export interface SandboxProxyOptions {
  resolve?: HostResolver;
}

const systemResolver: HostResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** A connection target after the policy and the address check. */
type Decision = { ok: true; address: string } | { ok: false; line: string; status: 403 | 502 };

export class SandboxProxy {
  readonly socketPath: string;
  readonly #directory: string;
  readonly #server: Server;
  #loopback: Server | undefined;
  readonly #policy: CompiledNetworkPolicy;
  readonly #resolve: HostResolver;
  readonly #blocked = new Set<string>();
  readonly #connections = new Set<Socket>();
  readonly #listeners = new Set<(line: string) => void>();
  /** Connections made and refused, for tests and benches. */
  readonly stats = { allowed: 0, blocked: 0 };

  private constructor(policy: NetworkPolicy, options: SandboxProxyOptions) {
    this.#policy = new CompiledNetworkPolicy(policy);
    this.#resolve = options.resolve ?? systemResolver;
    this.#directory = mkdtempSync(join(tmpdir(), 'efferent-proxy-'));
    this.socketPath = join(this.#directory, 'proxy.sock');
    this.#server = createServer((socket) => this.#accept(socket));
  }

  /** Starts a proxy for `policy`, listening on a Unix socket only this user can reach. */
  static async start(policy: NetworkPolicy, options: SandboxProxyOptions = {}): Promise<SandboxProxy> {
    const proxy = new SandboxProxy(policy, options);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(proxy.socketPath, () => resolve());
    });
    return proxy;
  }

  /**
   * Also listens on a loopback TCP port (both protocols on the one port, told apart by the first
   * byte) for sandboxes without a network namespace (macOS Seatbelt, whose profile allows outbound
   * TCP to this port only); returns the port. Idempotent.
   */
  async listenLoopback(): Promise<number> {
    if (this.#loopback) return (this.#loopback.address() as AddressInfo).port;
    const server = createServer((socket) => this.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.#loopback = server;
    return (server.address() as AddressInfo).port;
  }

  /** The loopback TCP port once {@link listenLoopback} has run. */
  get loopbackPort(): number | undefined {
    return this.#loopback ? (this.#loopback.address() as AddressInfo).port : undefined;
  }

  /** Lines for every blocked attempt so far, each once, in order. */
  get blocked(): string[] {
    return [...this.#blocked];
  }

  /** Calls `listener` with the line of each blocked attempt; returns the unsubscribe function. */
  onBlocked(listener: (line: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Serves a child started through the relay ({@link relayCommand}): for each connection the relay
   * accepts inside the sandbox, efferent connects to this proxy and hands the connected socket over
   * the child's IPC channel, and blocked attempts are written to the command's stderr by the relay.
   */
  attach(child: ChildProcess): () => void {
    const onMessage = (message: unknown) => {
      if (!isRecord(message) || message['t'] !== 'c' || typeof message['id'] !== 'number') return;
      const id = message['id'];
      const socket = connect(this.socketPath);
      socket.once('connect', () => {
        if (!child.connected) return socket.destroy();
        child.send({ t: 's', id }, socket, () => socket.destroy());
      });
      socket.once('error', () => {
        if (child.connected) child.send({ t: 's', id }, () => {});
      });
    };
    const stop = this.onBlocked((line) => {
      if (child.connected) child.send({ t: 'b', line }, () => {});
    });
    child.on('message', onMessage);
    child.once('exit', stop);
    return () => {
      stop();
      child.off('message', onMessage);
    };
  }

  /** Stops listening and ends every proxied connection. */
  async close(): Promise<void> {
    for (const socket of this.#connections) socket.destroy();
    const loopback = this.#loopback;
    await Promise.all([
      new Promise<void>((resolve) => this.#server.close(() => resolve())),
      loopback ? new Promise<void>((resolve) => loopback.close(() => resolve())) : undefined,
    ]);
    rmSync(this.#directory, { recursive: true, force: true });
  }

  #track(socket: Socket): void {
    this.#connections.add(socket);
    socket.once('close', () => this.#connections.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  #accept(client: Socket): void {
    this.#track(client);
    const reader = new Reader(client);
    void reader
      .peek()
      .then((first) => {
        if (first === undefined) return void client.destroy();
        return first === 0x05 ? this.#socks(client, reader) : this.#http(client, reader);
      })
      .catch(() => client.destroy());
  }

  /** Checks the name, resolves it and checks the addresses. */
  async #decide(rawHost: string, port: number): Promise<Decision> {
    const host = normaliseHostName(rawHost);
    const verdict = this.#policy.check(host, port);
    if (!verdict.allowed) return this.#refuse(verdict.message, 403);
    const override = this.#policy.overrides.get(host);
    if (override !== undefined) return { ok: true, address: override };
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.#resolve(host);
    } catch {
      return { ok: false, status: 502, line: `efferent sandbox: ${host} could not be resolved.` };
    }
    const usable = addresses.filter((address) => !isPrivateAddress(address));
    if (usable[0] === undefined)
      return this.#refuse(
        blockedLine(
          host,
          port,
          `it resolves to a private, loopback or link-local address (${addresses.join(', ') || 'none'})`,
          false,
        ),
        403,
      );
    return { ok: true, address: usable[0] };
  }

  #refuse(line: string, status: 403): Decision {
    this.stats.blocked += 1;
    if (!this.#blocked.has(line)) {
      this.#blocked.add(line);
      for (const listener of this.#listeners) listener(line);
    }
    return { ok: false, status, line };
  }

  #open(address: string, port: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const upstream = connect({ host: address, port });
      this.#track(upstream);
      const timer = setTimeout(() => {
        upstream.destroy();
        reject(new Error('timed out'));
      }, connectTimeoutMs);
      upstream.once('connect', () => {
        clearTimeout(timer);
        this.stats.allowed += 1;
        resolve(upstream);
      });
      upstream.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  async #http(client: Socket, reader: Reader): Promise<void> {
    const head = await reader.until(Buffer.from('\r\n\r\n'), maxHeadBytes);
    if (!head) return void client.end(httpError(400, 'efferent sandbox: the proxy request was not HTTP.'));
    const lines = head.toString('latin1').split('\r\n');
    const [method = '', target = '', version = 'HTTP/1.1'] = (lines[0] ?? '').split(' ');
    let host: string;
    let port: number;
    let path = '';
    if (method.toUpperCase() === 'CONNECT') {
      const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(target);
      if (!match?.[1] || !match[2])
        return void client.end(httpError(400, `efferent sandbox: CONNECT needs host:port, not "${target}".`));
      host = match[1];
      port = Number(match[2]);
    } else {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return void client.end(
          httpError(400, 'efferent sandbox: this is a proxy; send absolute-form requests or CONNECT.'),
        );
      }
      if (url.protocol !== 'http:')
        return void client.end(httpError(400, `efferent sandbox: ${url.protocol} goes through CONNECT.`));
      host = url.hostname;
      port = url.port === '' ? 80 : Number(url.port);
      path = `${url.pathname}${url.search}`;
    }
    const decision = await this.#decide(host, port);
    if (!decision.ok) return void client.end(httpError(decision.status, decision.line));
    let upstream: Socket;
    try {
      upstream = await this.#open(decision.address, port);
    } catch (error) {
      return void client.end(
        httpError(
          502,
          `efferent sandbox: could not connect to ${host}:${port} (${(error as Error).message}).`,
        ),
      );
    }
    const rest = reader.rest();
    if (method.toUpperCase() === 'CONNECT') {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    } else {
      // One request per connection: keep-alive would let later requests ride a connection to a
      // host checked for the first one.
      const headers = lines
        .slice(1)
        .filter(
          (line) =>
            line !== '' && !/^(proxy-connection|proxy-authorization|connection|keep-alive):/i.test(line),
        );
      upstream.write(
        `${method} ${path} ${version}\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`,
      );
    }
    if (rest.length > 0) upstream.write(rest);
    splice(client, upstream);
  }

  async #socks(client: Socket, reader: Reader): Promise<void> {
    const greeting = await reader.take(2);
    const methods = greeting ? await reader.take(greeting[1] ?? 0) : undefined;
    if (!greeting || !methods) return void client.destroy();
    if (!methods.includes(0x00)) return void client.end(Buffer.from([0x05, 0xff]));
    client.write(Buffer.from([0x05, 0x00]));
    const request = await reader.take(4);
    if (!request) return void client.destroy();
    const reply = (code: number) => Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
    if (request[1] !== 0x01) return void client.end(reply(0x07));
    let host: string | undefined;
    const type = request[3];
    if (type === 0x01) host = (await reader.take(4))?.join('.');
    else if (type === 0x03) {
      const length = await reader.take(1);
      host = length ? (await reader.take(length[0] ?? 0))?.toString('latin1') : undefined;
    } else if (type === 0x04) {
      const bytes = await reader.take(16);
      host = bytes ? (bytes.toString('hex').match(/.{4}/g) ?? []).join(':') : undefined;
    } else return void client.end(reply(0x08));
    const portBytes = await reader.take(2);
    if (host === undefined || !portBytes) return void client.destroy();
    const port = portBytes.readUInt16BE(0);
    const decision = await this.#decide(host, port);
    if (!decision.ok) return void client.end(reply(decision.status === 403 ? 0x02 : 0x04));
    let upstream: Socket;
    try {
      upstream = await this.#open(decision.address, port);
    } catch {
      return void client.end(reply(0x05));
    }
    client.write(reply(0x00));
    const rest = reader.rest();
    if (rest.length > 0) upstream.write(rest);
    splice(client, upstream);
  }
}

/**
 * Pipes two sockets into each other until either closes. When one side ends cleanly, the other is
 * ended after everything already read from it has been written (the pipe ends it; destroying it
 * at once would drop the tail of a download the client had not yet taken); only an error or an
 * abort tears the other side down at once.
 */
export function splice(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  closeAfter(a, b);
  closeAfter(b, a);
}

function closeAfter(from: Socket, to: Socket): void {
  from.once('close', (hadError) => {
    if (hadError || !from.readableEnded || to.writableFinished) return void to.destroy();
    // The pipe has called to.end(): let the buffered data go out, then close.
    to.once('finish', () => to.destroy());
    to.end();
  });
}

function httpError(status: 400 | 403 | 502, line: string): string {
  const text = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[status];
  const body = `${line}\n`;
  return `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Efferent-Sandbox: ${status === 403 ? 'blocked' : 'error'}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Reads a socket's first bytes on demand; what is left goes to the upstream afterwards. */
class Reader {
  #buffer: Buffer = Buffer.alloc(0);
  #ended = false;
  #wake: (() => void) | undefined;
  readonly #socket: Socket;
  readonly #onData = (chunk: Buffer) => {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    this.#wake?.();
  };
  readonly #onEnd = () => {
    this.#ended = true;
    this.#wake?.();
  };

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', this.#onData);
    socket.once('end', this.#onEnd);
    socket.once('close', this.#onEnd);
  }

  async #more(): Promise<boolean> {
    if (this.#ended) return false;
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    this.#wake = undefined;
    return true;
  }

  /** The first byte without consuming it, or undefined if the socket ended first. */
  async peek(): Promise<number | undefined> {
    while (this.#buffer.length < 1) if (!(await this.#more())) return undefined;
    return this.#buffer[0];
  }

  /** Exactly `count` bytes, or undefined if the socket ended first. */
  async take(count: number): Promise<Buffer | undefined> {
    while (this.#buffer.length < count) if (!(await this.#more())) return undefined;
    const taken = this.#buffer.subarray(0, count);
    this.#buffer = this.#buffer.subarray(count);
    return taken;
  }

  /** Everything up to and including `marker`, or undefined past `limit` bytes or at the end. */
  async until(marker: Buffer, limit: number): Promise<Buffer | undefined> {
    for (;;) {
      const at = this.#buffer.indexOf(marker);
      if (at >= 0) return this.take(at + marker.length);
      if (this.#buffer.length > limit || !(await this.#more())) return undefined;
    }
  }

  /** Stops reading and returns what was read beyond the handshake; the socket is paused. */
  rest(): Buffer {
    this.#socket.off('data', this.#onData);
    this.#socket.off('end', this.#onEnd);
    this.#socket.off('close', this.#onEnd);
    this.#socket.pause();
    const rest = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    return rest;
  }
}
