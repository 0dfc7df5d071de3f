import { realpathSync } from 'node:fs';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
  type ReadResourceResult,
  type Resource,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema } from '../core/index.ts';
import { linkCallSignal } from './call-signal.ts';
import type { McpServerConfig } from './config.ts';
import { FileOAuthProvider, McpAuthorizationRequiredError } from './oauth.ts';
import { ProcessGroupStdioTransport } from './stdio-transport.ts';
import { prepareSandboxedProcess } from '../sandbox/sandboxed-process.ts';

/** One `notifications/progress` of a running call. */
export interface McpCallProgress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/** `path` with links resolved when it exists (the sandbox hides real paths). */
function canonicalPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** How a `sandbox` stdio server is wrapped: its own folder writable, its own allowlist. */
function sandboxFor(
  config: Extract<McpServerConfig, { type: 'stdio' }>,
  hostOverrides?: Readonly<Record<string, string>>,
) {
  const sandbox = config.sandbox;
  return () =>
    prepareSandboxedProcess({
      command: config.command,
      args: config.args,
      cwd: config.cwd ?? sandbox?.writableDirectories[0] ?? process.cwd(),
      writableDirectories: sandbox?.writableDirectories ?? [],
      ...(sandbox?.hiddenPaths ? { hiddenPaths: sandbox.hiddenPaths.map(canonicalPath) } : {}),
      ...(sandbox && (sandbox.allowedDomains.length > 0 || sandbox.deniedDomains.length > 0)
        ? {
            network: {
              allowedDomains: sandbox.allowedDomains,
              deniedDomains: sandbox.deniedDomains,
              ...(hostOverrides ? { hostOverrides } : {}),
            },
          }
        : {}),
    });
}

/** A tool as a server lists it (the fields efferent uses). */
export interface McpToolDescriptor {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** Where a connection stands. */
export type McpConnectionStatus = 'pending' | 'connected' | 'failed' | 'closed';

/** A server's question to the user (elicitation); answer with accept, decline or cancel. */
export type McpElicitationHandler = (
  server: string,
  request: { message: string; requestedSchema: unknown },
  signal: AbortSignal,
) => Promise<ElicitResult>;

/** Options shared by every connection of a session. */
export interface McpConnectionOptions {
  /** `MCP_TIMEOUT`: how long start-up (spawn + initialize + tools/list) may take; default 30 s. */
  startupTimeoutMs?: number;
  /** How often a crashed stdio server is started again on a later call; default 3. */
  maxRestarts?: number;
  /** Largest message a stdio server may send; bigger ones stop the server. */
  maxMessageBytes?: number;
  /** Environment `${VAR}`-free base for stdio servers; default the SDK's safe subset (PATH, HOME, …). */
  baseEnv?: Readonly<Record<string, string>>;
  /** Asked when a server elicits; without it efferent does not offer elicitation. */
  elicit?: McpElicitationHandler;
  /** Diagnostic lines (server stderr, transport errors). */
  /** Names the proxies of sandboxed servers resolve without DNS (tests: loopback servers). */
  sandboxHostOverrides?: Readonly<Record<string, string>>;
  log?: (server: string, line: string) => void;
  /**
   * OAuth for HTTP/SSE servers: the folder of the stored registrations and tokens (mode 0600).
   * Connections only refresh tokens; a server that needs a new authorization fails with
   * `needsAuthorization` set, for `efferent mcp login NAME`.
   */
  oauthStoreDir?: string;
}

/** Default start-up limit (`MCP_TIMEOUT`). */
export const defaultStartupTimeoutMs = 30_000;

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Whether a failure means the user must authorize efferent with the server first. */
function isAuthorizationError(error: unknown): boolean {
  return error instanceof UnauthorizedError || error instanceof McpAuthorizationRequiredError;
}

function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
}

/**
 * One MCP server: its SDK client, transport and tool list. A stdio server that exits is started
 * again on the next call, at most `maxRestarts` times; every failure is recorded in `error` so
 * callers can tell the model what happened.
 */
export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  status: McpConnectionStatus = 'pending';
  /** Why the server is not connected, in words. */
  error: string | undefined;
  tools: McpToolDescriptor[] = [];
  instructions: string | undefined;
  serverVersion: { name: string; version: string } | undefined;
  hasResources = false;
  restarts = 0;
  /** Set when the server wants an OAuth login (`efferent mcp login NAME`) before it can be used. */
  needsAuthorization = false;
  /** Called after `tools/list_changed` refreshed {@link tools}. */
  onToolsChanged: (() => void) | undefined;

  readonly #options: McpConnectionOptions;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #opening: Promise<void> | undefined;
  #closed = false;
  /** Progress listeners of running calls, by the progress token efferent sent with the call. */
  readonly #progress = new Map<string, (progress: McpCallProgress) => void>();
  #nextProgressToken = 0;

  constructor(name: string, config: McpServerConfig, options: McpConnectionOptions = {}) {
    this.name = name;
    this.config = config;
    this.#options = options;
  }

  /** The stdio server's process group id while it runs. */
  get pid(): number | undefined {
    return this.#transport instanceof ProcessGroupStdioTransport ? this.#transport.pid : undefined;
  }

  /** Connects (once); never throws: a failure leaves `status: 'failed'` and `error`. */
  connect(): Promise<void> {
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async #open(): Promise<void> {
    const timeoutMs = this.#options.startupTimeoutMs ?? defaultStartupTimeoutMs;
    this.status = 'pending';
    this.error = undefined;
    this.needsAuthorization = false;
    try {
      await withTimeout(
        this.#start(timeoutMs),
        timeoutMs,
        `it did not finish starting within ${timeoutMs} ms (MCP_TIMEOUT)`,
      );
      if (this.#closed) throw new Error('the session ended');
      this.status = 'connected';
    } catch (error) {
      this.status = this.#closed ? 'closed' : 'failed';
      this.needsAuthorization = isAuthorizationError(error);
      this.error = this.needsAuthorization
        ? new McpAuthorizationRequiredError(this.name).message
        : describeError(error);
      await this.#dropTransport();
    }
  }

  async #start(timeoutMs: number): Promise<void> {
    const client = this.#newClient();
    if (this.config.type === 'stdio') {
      const transport = new ProcessGroupStdioTransport({
        command: this.config.command,
        args: this.config.args,
        env: { ...(this.#options.baseEnv ?? getDefaultEnvironment()), ...this.config.env },
        ...(this.config.cwd ? { cwd: this.config.cwd } : {}),
        ...(this.#options.maxMessageBytes ? { maxMessageBytes: this.#options.maxMessageBytes } : {}),
        onStderr: (line) => this.#options.log?.(this.name, line),
        ...(this.config.sandbox
          ? { sandbox: sandboxFor(this.config, this.#options.sandboxHostOverrides) }
          : {}),
      });
      await this.#attach(client, transport, timeoutMs);
    } else {
      const url = new URL(this.config.url);
      const requestInit = { headers: this.config.headers };
      const authProvider = this.#options.oauthStoreDir
        ? new FileOAuthProvider({
            serverName: this.name,
            serverUrl: this.config.url,
            storeDir: this.#options.oauthStoreDir,
          })
        : undefined;
      const remote = { requestInit, ...(authProvider ? { authProvider } : {}) };
      if (this.config.type === 'http') {
        try {
          await this.#attach(client, new StreamableHTTPClientTransport(url, remote), timeoutMs);
        } catch (error) {
          if (isAuthorizationError(error)) throw error;
          // The SDK's advice for old servers: when streamable HTTP fails, try the legacy SSE transport.
          this.#options.log?.(this.name, `streamable HTTP failed (${describeError(error)}); trying SSE`);
          await this.#dropTransport();
          await this.#attach(this.#newClient(), new SSEClientTransport(url, remote), timeoutMs);
        }
      } else {
        await this.#attach(client, new SSEClientTransport(url, remote), timeoutMs);
      }
    }
    await this.#loadTools();
  }

  #newClient(): Client {
    const client = new Client(
      { name: 'efferent', version: '0.1.0' },
      { capabilities: this.#options.elicit ? { elicitation: {} } : {} },
    );
    const elicit = this.#options.elicit;
    if (elicit) {
      client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
        elicit(
          this.name,
          {
            message: request.params.message,
            requestedSchema: 'requestedSchema' in request.params ? request.params.requestedSchema : undefined,
          },
          extra.signal,
        ),
      );
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.#client !== client) return;
      try {
        await this.#loadTools();
        this.onToolsChanged?.();
      } catch (error) {
        this.#options.log?.(this.name, `tools/list after list_changed failed: ${describeError(error)}`);
      }
    });
    return client;
  }

  async #attach(client: Client, transport: Transport, timeoutMs: number): Promise<void> {
    this.#client = client;
    this.#transport = transport;
    client.onclose = () => {
      if (this.#client !== client) return;
      if (this.status === 'connected') {
        this.status = 'failed';
        this.error = 'the server closed the connection (it exited or crashed)';
      }
    };
    client.onerror = (error) => this.#options.log?.(this.name, `transport: ${describeError(error)}`);
    await client.connect(transport, { timeout: timeoutMs });
    this.#routeProgress(transport);
    this.instructions = client.getInstructions();
    const version = client.getServerVersion();
    this.serverVersion = version ? { name: version.name, version: version.version } : undefined;
    this.hasResources = client.getServerCapabilities()?.resources !== undefined;
  }

  /**
   * Delivers a call's `notifications/progress` as the message arrives. The SDK hands notifications
   * to their handler a microtask later but settles a response at once, dropping the call's progress
   * listener: the last progress a server sends right before its result would be lost whenever both
   * arrive in one read. Progress for efferent's own tokens is taken off the wire here, in order.
   */
  #routeProgress(transport: Transport): void {
    const sdkOnMessage = transport.onmessage;
    if (!sdkOnMessage) return;
    transport.onmessage = (message, extra) => {
      const note = message as { method?: unknown; params?: { progressToken?: unknown } };
      if (note.method === 'notifications/progress' && typeof note.params?.progressToken === 'string') {
        const listener = this.#progress.get(note.params.progressToken);
        if (listener) {
          const { progress, total, message: text } = note.params as McpCallProgress;
          if (typeof progress === 'number') {
            listener({
              progress,
              ...(typeof total === 'number' ? { total } : {}),
              ...(typeof text === 'string' ? { message: text } : {}),
            });
          }
          return;
        }
      }
      sdkOnMessage.call(transport, message, extra);
    };
  }

  async #loadTools(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    if (!client.getServerCapabilities()?.tools) {
      this.tools = [];
      return;
    }
    const tools: McpToolDescriptor[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      for (const tool of page.tools) tools.push(tool as McpToolDescriptor);
      cursor = page.nextCursor;
    } while (cursor);
    this.tools = tools;
  }

  async #dropTransport(): Promise<void> {
    const client = this.#client;
    const transport = this.#transport;
    this.#client = undefined;
    this.#transport = undefined;
    await client?.close().catch(() => {});
    await transport?.close().catch(() => {});
  }

  /** A connected client, restarting a crashed stdio server when restarts remain; throws with a reason. */
  async #ready(): Promise<Client> {
    if (this.#opening) await this.#opening;
    if (this.#closed) throw new Error(`MCP server "${this.name}" was shut down with the session.`);
    if (this.status === 'failed' && this.config.type === 'stdio') {
      const limit = this.#options.maxRestarts ?? 3;
      if (this.restarts < limit) {
        this.restarts += 1;
        this.#options.log?.(this.name, `restarting (attempt ${this.restarts} of ${limit})`);
        await this.#dropTransport();
        await this.connect();
      }
    }
    if (this.status !== 'connected' || !this.#client) {
      throw new Error(
        `MCP server "${this.name}" is not available: ${this.error ?? 'it is not connected'}. Continue without it or ask the user to fix the server.`,
      );
    }
    return this.#client;
  }

  /** Calls a tool; `timeoutMs` is `MCP_TOOL_TIMEOUT`. Aborting sends `notifications/cancelled`. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      timeoutMs?: number;
      onProgress?: (progress: McpCallProgress) => void;
    } = {},
  ): Promise<CallToolResult> {
    // A connected server is the common case: take its client without an extra await.
    const client =
      this.status === 'connected' && this.#client && !this.#opening && !this.#closed
        ? this.#client
        : await this.#ready();
    // The SDK never removes its abort listener, so it gets a signal that lives as long as this call,
    // linked to the long-lived session signal by a listener that is removed afterwards.
    const call = linkCallSignal(options.signal);
    const progressToken = options.onProgress ? `efferent-${++this.#nextProgressToken}` : undefined;
    if (progressToken && options.onProgress) this.#progress.set(progressToken, options.onProgress);
    try {
      const result = await client.callTool(
        { name, arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) },
        CallToolResultSchema,
        { signal: call.signal.asSignal, timeout: options.timeoutMs ?? defaultToolTimeoutMs },
      );
      return result as CallToolResult;
    } finally {
      if (progressToken) this.#progress.delete(progressToken);
      call.unlink();
    }
  }

  /** Every resource the server lists. */
  async listResources(signal?: AbortSignal): Promise<Resource[]> {
    const client = await this.#ready();
    if (!this.hasResources) return [];
    const resources: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(
        cursor ? { cursor } : {},
        signal ? { signal: AbortSignal.any([signal]) } : {},
      );
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    return resources;
  }

  /** Reads one resource. */
  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const client = await this.#ready();
    return client.readResource({ uri }, signal ? { signal: AbortSignal.any([signal]) } : {});
  }

  /** Closes the client and kills a stdio server's process group. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#opening) await this.#opening.catch(() => {});
    await this.#dropTransport();
    this.status = 'closed';
  }
}

/** Default per-call limit (`MCP_TOOL_TIMEOUT`): long enough for slow tools, finite for hung ones. */
export const defaultToolTimeoutMs = 10 * 60_000;
