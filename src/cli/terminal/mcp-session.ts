import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import {
  configurationLocations,
  createSession,
  isWorkspaceTrusted,
  type Session,
  type SessionOptions,
  sessionConfiguration,
} from '../../agent/index.ts';
// The configuration loader is cheap; the SDK-backed parts load only when a server is configured, so
// commands without MCP servers start as fast as before.
import { type LoadMcpConfigOptions, loadMcpConfiguration } from '../../mcp/config.ts';
import type {
  McpElicitationHandler,
  McpLoginProgress,
  McpManager,
  McpManagerOptions,
} from '../../mcp/index.ts';
import { efferentConfigDir } from './transcript.ts';
import { terminalText } from './terminal-text.ts';

/** `--mcp-config` and `--strict-mcp-config`. */
export interface McpFlags {
  mcpConfig?: string[];
  strictMcpConfig?: boolean;
}

/** How servers may reach the user: without `elicit`, efferent does not offer elicitation (headless). */
export interface McpInteraction {
  elicit?: McpElicitationHandler;
  /** Interactive: run the OAuth login of a server that needs one, printing its URL here. */
  authorizeOn?: Writable;
}

/** Where OAuth registrations and tokens of MCP servers are kept: `<EFFERENT_CONFIG_DIR or ~/.efferent>/mcp-auth`. */
export function mcpOAuthStoreDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home = homedir(),
  projectFolders: readonly string[] = [process.cwd()],
): string {
  return join(efferentConfigDir(env, home, projectFolders), 'mcp-auth');
}

/** What {@link loadMcpFor} needs to find the configuration for a session's folder. */
export function mcpConfigOptions(
  options: SessionOptions,
  flags: McpFlags,
  trusted: boolean,
  home = options.home ?? configurationLocations(options).home,
): LoadMcpConfigOptions {
  return {
    projectRoot: options.projectRoot ?? options.cwd,
    cwd: options.cwd,
    home,
    trusted,
    ...(flags.mcpConfig?.length ? { cliConfigs: flags.mcpConfig } : {}),
    ...(flags.strictMcpConfig ? { strict: true } : {}),
    // Claude Code's files are read unless compatibility is switched off.
    ...(options.claudeCompat !== false ? { claudeCompat: true } : {}),
    env: options.env ?? process.env,
    managedSettingsPath: configurationLocations({ ...options, home }, options.env ?? process.env)
      .managedSettingsPath,
  };
}

/** Loads the MCP configuration for a session, reporting skipped entries on `errors`. */
export async function loadMcpFor(
  options: SessionOptions,
  flags: McpFlags,
  errors: Writable,
  interaction: McpInteraction = {},
  settingsEnv: Readonly<Record<string, string>> = {},
): Promise<{ manager: McpManager | undefined; trusted: boolean }> {
  const home = options.home ?? configurationLocations(options).home;
  const trusted = options.trusted ?? (await isWorkspaceTrusted(home, options.projectRoot ?? options.cwd));
  const configuration = await loadMcpConfiguration(mcpConfigOptions(options, flags, trusted, home));
  for (const warning of configuration.warnings) errors.write(`notice: ${terminalText(warning)}\n`);
  const enabled = configuration.servers.filter((server) => server.status === 'enabled');
  if (enabled.length === 0) return { manager: undefined, trusted };
  const { McpManager, mcpOptionsFromEnv } = await import('../../mcp/index.ts');
  const managerOptions: McpManagerOptions = {
    ...mcpOptionsFromEnv(options.env ?? process.env),
    ...(Object.keys(settingsEnv).length > 0
      ? {
          baseEnv: {
            ...(await import('@modelcontextprotocol/sdk/client/stdio.js')).getDefaultEnvironment(),
            ...settingsEnv,
          },
        }
      : {}),
    warn: (text) => errors.write(`notice: ${terminalText(text)}\n`),
    oauthStoreDir: mcpOAuthStoreDir(options.env ?? process.env, home, [
      options.projectRoot ?? options.cwd,
      options.cwd,
    ]),
    ...(interaction.elicit ? { elicit: interaction.elicit } : {}),
    ...(process.env['EFFERENT_DEBUG']
      ? { log: (server, line) => errors.write(`[mcp ${server}] ${line}\n`) }
      : {}),
  };
  return { manager: new McpManager(enabled, managerOptions), trusted };
}

/** The terminal's line for each step of an interactive MCP login. */
export function loginProgressLine(progress: McpLoginProgress): string {
  if (progress.stage === 'waiting')
    return `Waiting for the browser to come back to ${progress.callbackUrl} (Ctrl-C cancels; gives up after ${Math.round(progress.timeoutMs / 60_000)} min)...`;
  if (progress.stage === 'exchanging') return 'Authorization received; requesting tokens...';
  return 'The stored refresh token still works; no browser needed.';
}

/**
 * Opens a session with the configured MCP servers: they start in parallel, failures are reported
 * (the session still opens), their tools join the pool after the built-ins, and `session.dispose()`
 * closes them.
 */
export async function openSession(
  given: SessionOptions,
  flags: McpFlags,
  errors: Writable = process.stderr,
  interaction: McpInteraction = {},
): Promise<Session> {
  // Settings `env` applies to MCP servers and to MCP_TIMEOUT-style variables as it does to tools.
  const { settingsEnv, env } = await sessionConfiguration(given);
  const options = Object.keys(settingsEnv).length > 0 ? { ...given, env } : given;
  const { manager, trusted } = await loadMcpFor(options, flags, errors, interaction, settingsEnv);
  if (!manager) return createSession({ ...options, trusted });
  await manager.start();
  const authorizeOn = interaction.authorizeOn;
  if (authorizeOn) {
    const { loginToMcpServer } = await import('../../mcp/index.ts');
    await manager.authorizePending(async (connection) => {
      if (connection.config.type === 'stdio') return;
      authorizeOn.write(`\nMCP server "${connection.name}" needs authorization.\n`);
      await loginToMcpServer({
        serverName: connection.name,
        serverUrl: connection.config.url,
        storeDir: mcpOAuthStoreDir(
          options.env ?? process.env,
          options.home ?? configurationLocations(options).home,
          [options.projectRoot ?? options.cwd, options.cwd],
        ),
        onAuthorizationUrl: (url) =>
          authorizeOn.write(`Open this URL to authorize efferent:\n  ${url.href}\n`),
        onProgress: (progress) => authorizeOn.write(`${loginProgressLine(progress)}\n`),
      });
    });
  }
  for (const failure of manager.failures) errors.write(`notice: ${terminalText(failure)}\n`);
  const { attachMcpToSession } = await import('../../mcp/index.ts');
  try {
    const session = await createSession({
      ...options,
      trusted,
      extraTools: [...(options.extraTools ?? []), ...manager.tools],
    });
    attachMcpToSession(manager, session);
    return session;
  } catch (error) {
    await manager.dispose();
    throw error;
  }
}

interface ElicitProperty {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown }>;
  default?: unknown;
}

/**
 * A server's elicitation as questions in the terminal (interactive `run`): the message, one line per
 * field of the requested form, then whether to send the answer. An empty line keeps a field's
 * default or leaves an optional field out; end of input cancels.
 */
export function createTerminalElicit(
  input: { question(prompt: string, output: Writable, signal?: AbortSignal): Promise<string | null> },
  output: Writable,
): McpElicitationHandler {
  return async (server, request, signal) => {
    output.write(`\nMCP server "${terminalText(server)}" asks: ${terminalText(request.message)}\n`);
    const schema = (request.requestedSchema ?? {}) as {
      properties?: Record<string, ElicitProperty>;
      required?: string[];
    };
    const content: Record<string, string | number | boolean> = {};
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      const choices = property.enum ?? property.oneOf?.map((option) => option.const);
      const hint = choices
        ? ` (${choices.join('/')})`
        : property.type === 'boolean'
          ? ' [y/n]'
          : property.type === 'number' || property.type === 'integer'
            ? ' (number)'
            : '';
      const required = schema.required?.includes(key) ?? false;
      const answer = await input.question(
        `  ${terminalText(property.title ?? key)}${terminalText(hint)}${required ? '' : ' (optional)'}: `,
        output,
        signal,
      );
      if (answer === null) return { action: 'cancel' };
      const text = answer.trim();
      if (text === '') {
        if (property.default !== undefined) content[key] = property.default as string | number | boolean;
        continue;
      }
      if (property.type === 'boolean') content[key] = /^(y|yes|true)$/i.test(text);
      else if (property.type === 'number' || property.type === 'integer') content[key] = Number(text);
      else content[key] = text;
    }
    const send = await input.question('Send this answer? [y/N] ', output, signal);
    if (send === null) return { action: 'cancel' };
    return /^y(es)?$/i.test(send.trim()) ? { action: 'accept', content } : { action: 'decline' };
  };
}
