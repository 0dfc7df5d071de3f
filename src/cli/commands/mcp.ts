import type { Command } from 'commander';
import { configurationLocations, isWorkspaceTrusted, modelessPromptHookNotices } from '../../agent/index.ts';
import { EfferentError, type PermissionMode } from '../../core/index.ts';
import { type ConfiguredMcpServer, loadMcpConfiguration } from '../../mcp/config.ts';
import type { McpManager, ServeOptions } from '../../mcp/index.ts';
import {
  loginProgressLine,
  mcpConfigOptions,
  mcpOAuthStoreDir,
  openSession,
} from '../terminal/mcp-session.ts';
import {
  addSessionFlags,
  reportSettingsNotices,
  resolveTrust,
  type SessionFlags,
  sessionOptionsFromFlags,
} from '../terminal/session-flags.ts';
import { terminalText } from '../terminal/terminal-text.ts';

interface ServeFlags extends SessionFlags {
  mode?: PermissionMode;
  tools?: string;
  http?: boolean;
  port: string;
  token?: string;
}

function describeTransport(server: ConfiguredMcpServer): string {
  const config = server.config;
  return config.type === 'stdio'
    ? `stdio: ${[config.command, ...config.args].join(' ')}`
    : `${config.type}: ${config.url}`;
}

/** Loads the configuration and connects the enabled servers, for `list` and `get`. */
async function inspect(flags: SessionFlags, only?: string) {
  const options = await resolveTrust(flags, sessionOptionsFromFlags(flags));
  const home = configurationLocations(options).home;
  const trusted = options.trusted ?? (await isWorkspaceTrusted(home, options.cwd));
  const configuration = await loadMcpConfiguration(mcpConfigOptions(options, flags, trusted, home));
  const servers = configuration.servers.filter((server) => only === undefined || server.name === only);
  const { McpManager, mcpOptionsFromEnv } = await import('../../mcp/index.ts');
  const manager = new McpManager(
    servers.filter((server) => server.status === 'enabled'),
    { ...mcpOptionsFromEnv(), oauthStoreDir: mcpOAuthStoreDir(process.env, home, [options.cwd]) },
  );
  await manager.start();
  return { configuration, servers, manager };
}

function statusOf(server: ConfiguredMcpServer, manager: McpManager): string {
  if (server.status !== 'enabled') {
    return {
      disabled: 'disabled (disabledMcpjsonServers)',
      'needs-approval': 'not approved (add it to enabledMcpjsonServers)',
      untrusted: 'not started: folder not trusted (--trust)',
      blocked: `blocked: ${server.blockedBy ?? 'by the MCP server policy'}`,
    }[server.status];
  }
  const connection = manager.connections.find((candidate) => candidate.name === server.name);
  if (!connection) return 'unknown';
  return connection.status === 'connected'
    ? `connected (${connection.tools.length} tools)`
    : `failed: ${connection.error ?? 'unknown error'}`;
}

/** `efferent mcp`: list and inspect configured servers, or serve efferent's tools over MCP. */
export function registerMcpCommand(program: Command): void {
  const mcp = program.command('mcp').description('Use MCP servers, or serve efferent over MCP.');

  addSessionFlags(
    mcp.command('list').description('List configured MCP servers, their status and tool count.'),
  ).action(async (flags: SessionFlags) => {
    const { configuration, servers, manager } = await inspect(flags);
    try {
      for (const warning of configuration.warnings)
        process.stderr.write(`notice: ${terminalText(warning)}\n`);
      if (servers.length === 0) {
        process.stdout.write(
          'No MCP servers configured (.mcp.json, ~/.efferent/settings.json or --mcp-config).\n',
        );
        return;
      }
      for (const server of servers) {
        process.stdout.write(
          `${terminalText(`${server.name}  [${server.scope}]  ${describeTransport(server)}  ${statusOf(server, manager)}`)}\n`,
        );
      }
    } finally {
      await manager.dispose();
    }
  });

  addSessionFlags(
    mcp
      .command('get')
      .description('Show one MCP server: where it is configured, its status and its tools.')
      .argument('<name>', 'server name'),
  ).action(async (name: string, flags: SessionFlags) => {
    const { configuration, servers, manager } = await inspect(flags, name);
    try {
      const server = servers[0];
      if (!server) {
        const names = configuration.servers.map((s) => s.name).join(', ') || 'none';
        throw new EfferentError(
          'usage',
          `No MCP server named "${name}" is configured. Configured: ${names}.`,
        );
      }
      const lines = [
        `${server.name}`,
        `  scope: ${server.scope} (${server.origin})`,
        `  transport: ${describeTransport(server)}`,
        `  status: ${statusOf(server, manager)}`,
      ];
      const connection = manager.connections[0];
      if (connection?.serverVersion)
        lines.push(`  server: ${connection.serverVersion.name} ${connection.serverVersion.version}`);
      const tools = manager.mcpTools.sort((a, b) => (a.name < b.name ? -1 : 1));
      if (tools.length > 0) lines.push('  tools:');
      for (const tool of tools) {
        const hints = [tool.isReadOnly({}) ? 'read-only' : '', tool.isDestructive({}) ? 'destructive' : '']
          .filter(Boolean)
          .join(', ');
        lines.push(`    ${tool.name}${hints ? ` (${hints})` : ''}`);
      }
      process.stdout.write(`${terminalText(lines.join('\n'))}\n`);
    } finally {
      await manager.dispose();
    }
  });

  addSessionFlags(
    mcp
      .command('login')
      .description(
        'Authorize efferent with an OAuth-protected HTTP/SSE MCP server: prints the URL to open, waits for the browser on a 127.0.0.1 redirect, stores the tokens (mode 0600).',
      )
      .argument('<name>', 'server name')
      .option('--open', 'also open the URL in the browser'),
  ).action(async (name: string, flags: SessionFlags & { open?: boolean }) => {
    const options = await resolveTrust(flags, sessionOptionsFromFlags(flags));
    const home = configurationLocations(options).home;
    const trusted = options.trusted ?? (await isWorkspaceTrusted(home, options.cwd));
    const configuration = await loadMcpConfiguration(mcpConfigOptions(options, flags, trusted, home));
    const server = configuration.servers.find((candidate) => candidate.name === name);
    if (!server) {
      const names = configuration.servers.map((s) => s.name).join(', ') || 'none';
      throw new EfferentError('usage', `No MCP server named "${name}" is configured. Configured: ${names}.`);
    }
    if (server.config.type === 'stdio')
      throw new EfferentError(
        'usage',
        `MCP server "${name}" runs over stdio; only HTTP and SSE servers use OAuth, so there is nothing to log in to.`,
      );
    if (server.status === 'blocked')
      throw new EfferentError('usage', `MCP server "${name}" is blocked: ${server.blockedBy}.`);
    const { loginToMcpServer, McpLoginCancelledError } = await import('../../mcp/index.ts');
    const storeDir = mcpOAuthStoreDir(process.env, home, [options.cwd]);
    const say = (line: string) => process.stderr.write(`${line}\n`);
    // Ctrl-C (or SIGTERM) while waiting for the browser ends the login cleanly: the loopback
    // server closes, the unused PKCE verifier is dropped, earlier tokens stay as they were.
    const cancel = new AbortController();
    const onSignal = () => cancel.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await loginToMcpServer({
        serverName: name,
        serverUrl: server.config.url,
        storeDir,
        signal: cancel.signal,
        ...(flags.open ? { openBrowser: true } : {}),
        onAuthorizationUrl: (url) => {
          say(`Open this URL to authorize efferent with "${name}":\n  ${url.href}`);
          if (flags.open) say('Opening it in your browser.');
        },
        onProgress: (progress) => say(loginProgressLine(progress)),
      });
    } catch (error) {
      if (error instanceof McpLoginCancelledError) {
        // A terminal echoed ^C without a newline: start the message on a line of its own.
        if (process.stderr.isTTY) process.stderr.write('\n');
        say(
          `Login to "${name}" cancelled; no new tokens were stored. Run \`efferent mcp login ${name}\` to try again.`,
        );
        process.exitCode = 130;
        return;
      }
      throw new EfferentError(
        'usage',
        `Could not authorize efferent with MCP server "${name}": ${error instanceof Error ? error.message : String(error)}.`,
      );
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    process.stdout.write(`Authorized with MCP server "${name}"; tokens are stored in ${storeDir}.\n`);
  });

  addSessionFlags(
    mcp
      .command('serve')
      .description("Serve efferent's tools to an MCP client: stdio by default, --http for streamable HTTP.")
      .option('--tools <names>', 'serve only these tools, comma-separated (e.g. Read,Grep,Glob)')
      .option(
        '--http',
        'serve streamable HTTP (/mcp) and legacy HTTP+SSE (/sse) on 127.0.0.1 instead of stdio',
      )
      .option('--port <n>', 'HTTP port (0 picks a free one)', '0')
      .option('--token <token>', 'HTTP bearer token (default: a random one, printed at start)'),
    '--mode',
  ).action(async (flags: ServeFlags) => {
    const base = await resolveTrust(flags, {
      ...sessionOptionsFromFlags(flags, flags.mode),
      model: 'mcp-client',
    });
    const tools = flags.tools
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const serveOptions: ServeOptions = {
      createSession: async (askUser) => {
        // An MCP client lists every tool itself: nothing is deferred behind ToolSearch.
        const session = await openSession({ ...base, askUser, toolSearch: false }, flags);
        // No model here: prompt hooks cannot decide, and the notice says so once.
        reportSettingsNotices(
          [...session.settings.notices, ...modelessPromptHookNotices(session.settings)],
          flags,
        );
        return session;
      },
      ...(tools ? { tools } : {}),
    };
    const { createEfferentMcpServer, serveHttp } = await import('../../mcp/index.ts');
    if (flags.http) {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535)
        throw new EfferentError('usage', `--port must be a port number, not "${flags.port}".`);
      const running = await serveHttp({
        ...serveOptions,
        port,
        ...(flags.token ? { token: flags.token } : {}),
      });
      process.stderr.write(
        `efferent MCP server on ${running.url} (legacy HTTP+SSE clients: ${running.sseUrl})\nbearer token: ${running.token}\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await running.close();
      return;
    }
    const served = createEfferentMcpServer(serveOptions);
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      served.server.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await served.server.connect(transport);
    await closed;
    await served.close();
  });
}
