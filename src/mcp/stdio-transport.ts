import { type ChildProcess, spawn } from 'node:child_process';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxedProcess } from '../sandbox/sandboxed-process.ts';
import { processGroupLaunch } from './process-group-launch.ts';

/** How to start a stdio server. */
export interface StdioServerParameters {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string;
  /** Largest single message accepted; a bigger one stops the server (default 16 MB). */
  maxMessageBytes?: number;
  /** Receives the server's stderr, line by line (default: dropped). */
  onStderr?: (line: string) => void;
  /** Runs the server in the OS sandbox (wraps the command; released when the server ends). */
  sandbox?: () => Promise<SandboxedProcess>;
}

/** The default largest message a stdio server may send. */
export const defaultMaxMessageBytes = 16 * 1024 * 1024;

/**
 * The client side of MCP's stdio transport. Messages are written by the SDK's `serializeMessage` and
 * validated by the SDK's protocol (see {@link parseMessage}); this class owns the process and the line framing
 * (chunks are joined once per line, so a large message costs linear time): the server runs in its own
 * process group, so closing kills everything it started (npx wrappers, shells, grandchildren), which
 * the SDK's `StdioClientTransport` cannot do.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #params: StdioServerParameters;
  readonly #maxMessageBytes: number;
  /** Chunks of the line being received, so a large message is joined once rather than per chunk. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #child: ChildProcess | undefined;
  #closed = false;
  #exit: Promise<void> = Promise.resolve();

  constructor(params: StdioServerParameters) {
    this.#params = params;
    this.#maxMessageBytes = params.maxMessageBytes ?? defaultMaxMessageBytes;
  }

  /** The server's process id (also its process group id) while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async start(): Promise<void> {
    const sandboxed = await this.#params.sandbox?.();
    // A sandboxed server keeps its own session (no controlling terminal inside the sandbox).
    const launch = sandboxed
      ? { file: sandboxed.file, args: sandboxed.args, detached: true }
      : processGroupLaunch(this.#params.command, this.#params.args, this.#params.env, this.#params.cwd);
    return new Promise((resolve, reject) => {
      const child = spawn(launch.file, launch.args, {
        cwd: this.#params.cwd,
        env: { ...this.#params.env },
        stdio: ['pipe', 'pipe', 'pipe', ...(sandboxed?.extraStdio ?? [])],
        detached: launch.detached,
        windowsHide: true,
      });
      sandboxed?.attach(child);
      this.#child = child;
      this.#exit = new Promise((done) => child.once('close', () => done()));
      if (sandboxed) void this.#exit.then(() => sandboxed.release());
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
        this.#finish();
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        // A crashed server may leave children behind in its group: they go with it.
        signalGroup(child, 'SIGKILL');
        this.#finish();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#receive(chunk));
      let pending = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        if (pending.length > 65_536) pending = '';
        for (const line of lines) this.#params.onStderr?.(line);
      });
    });
  }

  #receive(chunk: Buffer): void {
    let rest = chunk;
    for (let newline = rest.indexOf(10); newline !== -1; newline = rest.indexOf(10)) {
      // The usual message arrives in one chunk: decode it in place, without joining or copying.
      const end = newline > 0 && rest[newline - 1] === 13 ? newline - 1 : newline;
      const line =
        this.#pending.length === 0
          ? rest.toString('utf8', 0, end)
          : Buffer.concat([...this.#pending, rest.subarray(0, newline)])
              .toString('utf8')
              .replace(/\r$/, '');
      this.#pending = [];
      this.#pendingBytes = 0;
      rest = rest.subarray(newline + 1);
      if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '')) continue;
      let message: JSONRPCMessage;
      try {
        message = parseMessage(line);
      } catch (error) {
        // A line that is not JSON-RPC (a stray log line on stdout) is reported and skipped.
        this.onerror?.(
          new Error(`The server wrote a line that is not JSON-RPC: ${line.slice(0, 200)}`, { cause: error }),
        );
        continue;
      }
      this.onmessage?.(message);
      if (this.#closed) return;
    }
    if (rest.length === 0) return;
    this.#pending.push(rest);
    this.#pendingBytes += rest.length;
    if (this.#pendingBytes > this.#maxMessageBytes) {
      // A message beyond the limit: the server is stopped rather than buffered without end.
      this.#pending = [];
      this.#pendingBytes = 0;
      this.onerror?.(new Error(`The server sent a message larger than ${this.#maxMessageBytes} bytes.`));
      void this.close();
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin || this.#closed || stdin.destroyed) {
        reject(new Error('The MCP server process is not running.'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends stdin, then signals the whole process group: SIGTERM, and SIGKILL after a grace period. */
  async close(graceMs = 1_500): Promise<void> {
    const child = this.#child;
    if (!child) return this.#finish();
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
      timer.unref();
      await this.#exit;
      clearTimeout(timer);
    }
    // The leader may be gone while its children still run: sweep the group once more.
    signalGroup(child, 'SIGKILL');
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.onclose?.();
  }
}

/**
 * One line as a JSON-RPC message; throws when it is not JSON, or not a JSON-RPC 2.0 request,
 * notification or response. Only the envelope is checked here: the SDK's protocol checks every
 * message it receives against its kind's strict schema when it dispatches it (and a response's result
 * against the request's result schema, a request's params against its handler's), so parsing the
 * whole message with the SDK's union schema here too (`deserializeMessage`) validated it twice.
 */
export function parseMessage(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('not a JSON-RPC message (a JSON object was expected)');
  const message = value as Record<string, unknown>;
  if (message['jsonrpc'] !== '2.0') throw new Error('not a JSON-RPC 2.0 message (no "jsonrpc": "2.0")');
  if (typeof message['method'] !== 'string' && !('result' in message) && !('error' in message))
    throw new Error('not a JSON-RPC message (neither a method nor a result or error)');
  return value as JSONRPCMessage;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}
