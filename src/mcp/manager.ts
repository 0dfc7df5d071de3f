import type { AnyTool, McpClientInfo } from '../core/index.ts';
import type { ConfiguredMcpServer } from './config.ts';
import { McpConnection, type McpConnectionOptions } from './connection.ts';
import { createMcpTool, cutText, type McpToolOptions } from './mcp-tool.ts';
import { normalizeServerName, qualifiedToolNames } from './names.ts';
import { createResourceTools } from './resource-tools.ts';

/** Options for every server of a session. */
export interface McpManagerOptions extends McpConnectionOptions, McpToolOptions {}

function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/** `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT` (milliseconds) and `MAX_MCP_OUTPUT_TOKENS` from the environment. */
export function mcpOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): McpManagerOptions {
  const options: McpManagerOptions = {};
  const startup = positiveInteger(env['MCP_TIMEOUT']);
  const tool = positiveInteger(env['MCP_TOOL_TIMEOUT']);
  const tokens = positiveInteger(env['MAX_MCP_OUTPUT_TOKENS']);
  if (startup) options.startupTimeoutMs = startup;
  if (tool) options.toolTimeoutMs = tool;
  if (tokens) options.maxOutputTokens = tokens;
  return options;
}

/**
 * The MCP servers of one session: started in parallel, each failure contained to its server, their
 * tools offered as `mcp__<server>__<tool>`. A session resource: `dispose()` closes every server and
 * kills each stdio server's process group.
 */
export class McpManager {
  readonly connections: McpConnection[] = [];
  /** Called with tools a `tools/list_changed` added (the pool only grows during a session). */
  onToolsAdded: ((tools: AnyTool[]) => void) | undefined;
  readonly #options: McpManagerOptions;
  readonly #byConnection = new Map<McpConnection, Map<string, AnyTool>>();
  readonly #serverNames = new Map<McpConnection, string>();
  readonly #resourceTools: AnyTool[];

  constructor(servers: readonly ConfiguredMcpServer[], options: McpManagerOptions = {}) {
    this.#options = options;
    const enabled = servers.filter((server) => server.status === 'enabled');
    const connections = new Map(
      enabled.map((server) => [server, new McpConnection(server.name, server.config, options)]),
    );
    // Two configured names that normalise alike ("a.b", "a_b") still get distinct prefixes. The
    // user's, the policy's and --mcp-config servers claim theirs first: a repository's server named
    // "memory." must not take `mcp__memory` (and the rules written for it) from the user's "memory".
    const used = new Set<string>();
    for (const server of [...enabled].sort(
      (a, b) => Number(a.scope === 'project') - Number(b.scope === 'project'),
    )) {
      const connection = connections.get(server);
      if (!connection) continue;
      const base = normalizeServerName(server.name);
      let name = base;
      for (let n = 2; used.has(name); n += 1) name = `${base}-${n}`;
      used.add(name);
      this.#serverNames.set(connection, name);
    }
    for (const connection of connections.values()) {
      connection.onToolsChanged = () => this.#refresh(connection);
      this.connections.push(connection);
    }
    this.#resourceTools = createResourceTools(() => this.connections);
  }

  /** Starts every server at once; resolves when each is connected or has failed (never throws). */
  async start(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.connect()));
    for (const connection of this.connections) this.#build(connection);
  }

  /**
   * Lets the user authorize each server that asked for an OAuth login (`login` runs it), then
   * connects those servers again; their tools join {@link tools}. A failed login leaves the server
   * failed with its reason, the others unaffected.
   */
  async authorizePending(login: (connection: McpConnection) => Promise<void>): Promise<void> {
    for (const connection of this.connections) {
      if (!connection.needsAuthorization) continue;
      try {
        await login(connection);
      } catch (error) {
        connection.error = `the login failed: ${error instanceof Error ? error.message : String(error)}`;
        connection.needsAuthorization = false;
        continue;
      }
      await connection.connect();
      this.#build(connection);
    }
  }

  #build(connection: McpConnection): AnyTool[] {
    const serverName = this.#serverNames.get(connection) ?? normalizeServerName(connection.name);
    const existing = this.#byConnection.get(connection) ?? new Map<string, AnyTool>();
    const names = qualifiedToolNames(
      serverName,
      connection.tools.map((tool) => tool.name),
    );
    const added: AnyTool[] = [];
    for (const descriptor of connection.tools) {
      const qualified = names.get(descriptor.name);
      if (!qualified || existing.has(qualified)) continue;
      const tool = createMcpTool(connection, serverName, descriptor, qualified, this.#options);
      existing.set(qualified, tool);
      added.push(tool);
    }
    this.#byConnection.set(connection, existing);
    return added;
  }

  #refresh(connection: McpConnection): void {
    const added = this.#build(connection);
    if (added.length > 0) this.onToolsAdded?.(added);
  }

  /** Every MCP tool (with `mcpInfo`), in no particular order: the pool sorts them. */
  get mcpTools(): AnyTool[] {
    return [...this.#byConnection.values()].flatMap((tools) => [...tools.values()]);
  }

  /** `ListMcpResources` and `ReadMcpResource`, offered when at least one server is configured. */
  get resourceTools(): AnyTool[] {
    return this.connections.length > 0 ? this.#resourceTools : [];
  }

  /** What to give `createSession({ extraTools })`. */
  get tools(): AnyTool[] {
    return [...this.resourceTools, ...this.mcpTools];
  }

  /** Connected servers and their instructions (cut at 2 KB), for the context. */
  get clientInfo(): McpClientInfo[] {
    return this.connections
      .filter((connection) => connection.status === 'connected')
      .map((connection) => ({
        name: this.#serverNames.get(connection) ?? connection.name,
        ...(connection.instructions ? { instructions: cutText(connection.instructions) } : {}),
      }));
  }

  /** One line per server that failed to start, for the user. */
  get failures(): string[] {
    return this.connections
      .filter((connection) => connection.status === 'failed')
      .map((connection) =>
        connection.needsAuthorization
          ? `MCP ${connection.error}; its tools are not available until then.`
          : `MCP server "${connection.name}" failed to start: ${connection.error ?? 'unknown error'}. Its tools are not available.`,
      );
  }

  /** Closes every server (in parallel) and kills the stdio servers' process groups. */
  async dispose(): Promise<void> {
    await Promise.allSettled(this.connections.map((connection) => connection.close()));
  }
}
