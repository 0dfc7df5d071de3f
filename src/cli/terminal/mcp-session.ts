import { homedir } from 'node:os';
import type { Writable } from 'node:stream';
import { createSession, isWorkspaceTrusted, type Session, type SessionOptions } from '../../agent/index.ts';
import {
  attachMcpToSession,
  type LoadMcpConfigOptions,
  loadMcpConfiguration,
  McpManager,
  type McpManagerOptions,
  mcpOptionsFromEnv,
} from '../../mcp/index.ts';

/** `--mcp-config` and `--strict-mcp-config`. */
export interface McpFlags {
  mcpConfig?: string[];
  strictMcpConfig?: boolean;
}

/** What {@link loadMcpFor} needs to find the configuration for a session's folder. */
export function mcpConfigOptions(
  options: SessionOptions,
  flags: McpFlags,
  trusted: boolean,
  home = options.home ?? homedir(),
): LoadMcpConfigOptions {
  return {
    projectRoot: options.projectRoot ?? options.cwd,
    cwd: options.cwd,
    home,
    trusted,
    ...(flags.mcpConfig?.length ? { cliConfigs: flags.mcpConfig } : {}),
    ...(flags.strictMcpConfig ? { strict: true } : {}),
    ...(options.claudeCompat ? { claudeCompat: true } : {}),
    env: options.env ?? process.env,
  };
}

/** Loads the MCP configuration for a session, reporting skipped entries on `errors`. */
export async function loadMcpFor(
  options: SessionOptions,
  flags: McpFlags,
  errors: Writable,
): Promise<{ manager: McpManager | undefined; trusted: boolean }> {
  const home = options.home ?? homedir();
  const trusted = options.trusted ?? (await isWorkspaceTrusted(home, options.projectRoot ?? options.cwd));
  const configuration = await loadMcpConfiguration(mcpConfigOptions(options, flags, trusted, home));
  for (const warning of configuration.warnings) errors.write(`notice: ${warning}\n`);
  const enabled = configuration.servers.filter((server) => server.status === 'enabled');
  if (enabled.length === 0) return { manager: undefined, trusted };
  const managerOptions: McpManagerOptions = {
    ...mcpOptionsFromEnv(options.env ?? process.env),
    warn: (text) => errors.write(`notice: ${text}\n`),
    ...(process.env['EFFERENT_DEBUG']
      ? { log: (server, line) => errors.write(`[mcp ${server}] ${line}\n`) }
      : {}),
  };
  return { manager: new McpManager(enabled, managerOptions), trusted };
}

/**
 * Opens a session with the configured MCP servers: they start in parallel, failures are reported
 * (the session still opens), their tools join the pool after the built-ins, and `session.dispose()`
 * closes them.
 */
export async function openSession(
  options: SessionOptions,
  flags: McpFlags,
  errors: Writable = process.stderr,
): Promise<Session> {
  const { manager, trusted } = await loadMcpFor(options, flags, errors);
  if (!manager) return createSession({ ...options, trusted });
  await manager.start();
  for (const failure of manager.failures) errors.write(`notice: ${failure}\n`);
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
