import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { readOwnFile, relaxedJson, withoutByteOrderMark } from '../core/index.ts';
import { type McpPolicyFile, type McpServerPolicy, mergeMcpPolicy, policyBlockReason } from './policy.ts';

/** How to reach one MCP server, after `${VAR}` expansion. */
export type McpServerConfig =
  | {
      type: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      /** `sandbox: true` or `{ allowedDomains, deniedDomains, allowWrite, denyRead }`: run in the OS sandbox. */
      sandbox?: McpServerSandbox;
    }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

/**
 * A sandboxed stdio server: it may write only its own folder (its `cwd`, else the folder of the file
 * that configured it) and `allowWrite`, and reach only `allowedDomains` through the proxies.
 */
export interface McpServerSandbox {
  writableDirectories: string[];
  allowedDomains: string[];
  deniedDomains: string[];
  /** `denyRead`: paths the server must not read (relative to the configuring file's folder). */
  hiddenPaths?: string[];
}

/** Where a server's entry came from; later scopes in this list lose to earlier ones. */
export type McpConfigScope = 'cli' | 'project' | 'user' | 'claude-user';

/** One configured server and whether it may start. */
export interface ConfiguredMcpServer {
  name: string;
  scope: McpConfigScope;
  /** The file (or `--mcp-config`) that defined it. */
  origin: string;
  config: McpServerConfig;
  /** `enabled` servers start; the others say why not. */
  status: 'enabled' | 'disabled' | 'needs-approval' | 'untrusted' | 'blocked';
  /** For a `blocked` server: which policy key blocks it and why (`allowedMcpServers`/`deniedMcpServers`). */
  blockedBy?: string;
}

/** The servers a session would use, and what was wrong with the rest. */
export interface McpConfiguration {
  servers: ConfiguredMcpServer[];
  /** One sentence per skipped or refused entry, naming the file and the server. */
  warnings: string[];
}

/** What {@link loadMcpConfiguration} reads; nothing ambient. */
export interface LoadMcpConfigOptions {
  projectRoot: string;
  home: string;
  /** Whether the user trusts the project folder; an untrusted `.mcp.json` never starts a process. */
  trusted: boolean;
  /** `--mcp-config FILE|JSON`, each a path or JSON text starting with `{`. */
  cliConfigs?: readonly string[];
  /** `--strict-mcp-config`: only the `--mcp-config` servers. */
  strict?: boolean;
  /** Also read `~/.claude.json` and Claude Code's `.claude/` settings. */
  claudeCompat?: boolean;
  /** For `${VAR}` expansion; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where relative `--mcp-config` paths start; default `projectRoot`. */
  cwd?: string;
  /**
   * The managed policy file (`allowedMcpServers`, `deniedMcpServers`, `allowManagedMcpServersOnly`);
   * not read when absent.
   */
  managedSettingsPath?: string;
}

const stringMap = z.record(z.string(), z.string());

const stdioEntry = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: z.string().optional(),
  sandbox: z
    .union([
      z.boolean(),
      z.looseObject({
        allowedDomains: z.array(z.string()).optional(),
        deniedDomains: z.array(z.string()).optional(),
        allowWrite: z.array(z.string()).optional(),
        denyRead: z.array(z.string()).optional(),
      }),
    ])
    .optional(),
});

const remoteEntry = z.looseObject({
  type: z.enum(['http', 'sse', 'streamable-http']),
  url: z.string().min(1),
  headers: stringMap.optional(),
});

const approvalSchema = z.looseObject({
  enableAllProjectMcpServers: z.boolean().optional(),
  enabledMcpjsonServers: z.array(z.string()).optional(),
  disabledMcpjsonServers: z.array(z.string()).optional(),
});

/**
 * Expands `${VAR}` and `${VAR:-default}`. Unset variables without a default are collected in
 * `missing` and expand to the empty string.
 */
export function expandVariables(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: string[] = [],
): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback as string;
    if (value === undefined) missing.push(name);
    return '';
  });
}

function expandMap(
  map: Record<string, string> | undefined,
  env: Readonly<Record<string, string | undefined>>,
  missing: string[],
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(map ?? {}).map(([key, value]) => [key, expandVariables(value, env, missing)]),
  );
}

/** Validates and expands one entry; a string is the reason it was skipped. */
export function parseServerEntry(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  baseDir: string,
): McpServerConfig | string {
  const missing: string[] = [];
  const type = (raw as { type?: unknown } | null)?.type;
  if (type === 'http' || type === 'sse' || type === 'streamable-http') {
    const parsed = remoteEntry.safeParse(raw);
    if (!parsed.success) return `it needs a "url" string (${firstIssue(parsed.error)})`;
    const url = expandVariables(parsed.data.url, env, missing);
    const headers = expandMap(parsed.data.headers, env, missing);
    if (missing.length > 0) return missingMessage(missing);
    try {
      const protocol = new URL(url).protocol;
      if (protocol !== 'http:' && protocol !== 'https:') return `its url ${url} is not http(s)`;
    } catch {
      return `its url "${url}" is not a valid URL`;
    }
    return { type: type === 'sse' ? 'sse' : 'http', url, headers };
  }
  if (type !== undefined && type !== 'stdio')
    return `its type ${JSON.stringify(type)} is not stdio, http or sse`;
  const parsed = stdioEntry.safeParse(raw);
  if (!parsed.success) return `a stdio server needs a "command" string (${firstIssue(parsed.error)})`;
  const command = expandVariables(parsed.data.command, env, missing);
  const args = (parsed.data.args ?? []).map((arg) => expandVariables(arg, env, missing));
  const serverEnv = expandMap(parsed.data.env, env, missing);
  const cwd = parsed.data.cwd === undefined ? undefined : expandVariables(parsed.data.cwd, env, missing);
  if (missing.length > 0) return missingMessage(missing);
  const folder = cwd !== undefined ? (isAbsolute(cwd) ? cwd : resolve(baseDir, cwd)) : undefined;
  const sandbox = parsed.data.sandbox;
  return {
    type: 'stdio',
    command,
    args,
    env: serverEnv,
    ...(folder !== undefined ? { cwd: folder } : {}),
    ...(sandbox === true || typeof sandbox === 'object'
      ? {
          sandbox: {
            writableDirectories: [
              folder ?? baseDir,
              ...((typeof sandbox === 'object' && sandbox.allowWrite) || []).map((path) =>
                resolve(baseDir, path),
              ),
            ],
            allowedDomains: (typeof sandbox === 'object' && sandbox.allowedDomains) || [],
            deniedDomains: (typeof sandbox === 'object' && sandbox.deniedDomains) || [],
            ...(typeof sandbox === 'object' && sandbox.denyRead
              ? { hiddenPaths: sandbox.denyRead.map((path) => resolve(baseDir, path)) }
              : {}),
          },
        }
      : {}),
  };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'entry'}: ${issue.message}` : 'invalid';
}

function missingMessage(missing: string[]): string {
  const names = [...new Set(missing)].map((name) => `\${${name}}`).join(', ');
  return `${names} is not set in the environment (set it, or write \${NAME:-default})`;
}

/** The largest MCP configuration file read. */
const maxConfigBytes = 4 * 1024 * 1024;

/** Reads a JSON file, bounded; a project's own file may not lead out of the project by a link. */
async function readJson(
  path: string,
  scope: { within?: string; projectRoot?: string; restrictionsOnly?: 'managed' | 'other' } = {},
): Promise<{ value?: unknown; error?: string }> {
  const { restrictionsOnly: _, ...where } = scope;
  const read = await readOwnFile(path, { maxBytes: maxConfigBytes, ...where });
  if (read.kind === 'missing') return {};
  if (read.kind === 'refused') return { error: `cannot be read (${read.reason})` };
  const text = withoutByteOrderMark(read.text);
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    const problem = `is not valid JSON (${(error as Error).message})`;
    // A settings file with comments or trailing commas still restricts what it restricts: its
    // denylist, and a managed file's allowlist and allowManagedMcpServersOnly.
    const relaxed = scope.restrictionsOnly ? relaxedJson(text) : undefined;
    if (relaxed === null || typeof relaxed !== 'object' || Array.isArray(relaxed)) return { error: problem };
    const keys =
      scope.restrictionsOnly === 'managed'
        ? ['deniedMcpServers', 'allowedMcpServers', 'allowManagedMcpServersOnly']
        : ['deniedMcpServers'];
    const kept = Object.fromEntries(Object.entries(relaxed).filter(([key]) => keys.includes(key)));
    return Object.keys(kept).length > 0 ? { value: kept, error: problem } : { error: problem };
  }
}

interface Source {
  scope: McpConfigScope;
  origin: string;
  baseDir: string;
  servers: Record<string, unknown>;
}

function serversOf(value: unknown): Record<string, unknown> | undefined {
  const servers = (value as { mcpServers?: unknown } | null)?.mcpServers;
  return servers !== null && typeof servers === 'object' && !Array.isArray(servers)
    ? (servers as Record<string, unknown>)
    : undefined;
}

async function fileSource(
  scope: McpConfigScope,
  path: string,
  warnings: string[],
  within?: string,
): Promise<Source | undefined> {
  const { value, error } = await readJson(path, within === undefined ? {} : { within });
  if (error) {
    warnings.push(`MCP configuration ${path} ${error}; its servers were skipped.`);
    return undefined;
  }
  const servers = serversOf(value);
  if (value !== undefined && servers === undefined && scope === 'cli') {
    warnings.push(`MCP configuration ${path} has no "mcpServers" object; nothing was loaded from it.`);
  }
  return servers ? { scope, origin: path, baseDir: join(path, '..'), servers } : undefined;
}

async function cliSource(text: string, cwd: string, warnings: string[]): Promise<Source | undefined> {
  if (text.trimStart().startsWith('{')) {
    try {
      const servers = serversOf(JSON.parse(text));
      if (servers) return { scope: 'cli', origin: '--mcp-config', baseDir: cwd, servers };
      warnings.push('--mcp-config JSON has no "mcpServers" object; nothing was loaded from it.');
    } catch (error) {
      warnings.push(`--mcp-config JSON is not valid (${(error as Error).message}); it was ignored.`);
    }
    return undefined;
  }
  const path = isAbsolute(text) ? text : resolve(cwd, text);
  const { value, error } = await readJson(path);
  if (error || value === undefined) {
    warnings.push(`--mcp-config ${path} ${error ?? 'does not exist'}; it was ignored.`);
    return undefined;
  }
  return fileSource('cli', path, warnings);
}

interface SettingsFileRole {
  path: string;
  managed: boolean;
  /** Whether the file may approve project servers and widen the allowlist. */
  mayGrant: boolean;
}

/**
 * The settings files whose MCP keys apply: the managed policy, user settings, and the project's
 * shared and local settings (which may only deny when the folder is untrusted, so a repository cannot
 * approve its own servers or widen an allowlist).
 */
function settingsFilesFor(options: LoadMcpConfigOptions): SettingsFileRole[] {
  const file = (path: string, mayGrant = true, managed = false) => ({ path, managed, mayGrant });
  return [
    ...(options.managedSettingsPath ? [file(options.managedSettingsPath, true, true)] : []),
    file(join(options.home, '.efferent', 'settings.json')),
    // A repository can carry its own settings.local.json: project files grant only when trusted.
    file(join(options.projectRoot, '.efferent', 'settings.local.json'), options.trusted),
    file(join(options.projectRoot, '.efferent', 'settings.json'), options.trusted),
    ...(options.claudeCompat
      ? [
          file(join(options.home, '.claude', 'settings.json')),
          file(join(options.projectRoot, '.claude', 'settings.local.json'), options.trusted),
          file(join(options.projectRoot, '.claude', 'settings.json'), options.trusted),
        ]
      : []),
  ];
}

/** Approval of `.mcp.json` servers and the allow/deny policy, from every settings file that applies. */
async function readApprovalsAndPolicy(
  options: LoadMcpConfigOptions,
  warnings: string[],
): Promise<{
  approvals: { all: boolean; enabled: Set<string>; disabled: Set<string> };
  policy: McpServerPolicy;
}> {
  const approvals = { all: false, enabled: new Set<string>(), disabled: new Set<string>() };
  const policyFiles: McpPolicyFile[] = [];
  for (const role of settingsFilesFor(options)) {
    const { value, error } = await readJson(role.path, {
      projectRoot: options.projectRoot,
      restrictionsOnly: role.managed ? 'managed' : 'other',
    });
    if (value === undefined) continue;
    // A file that is not strict JSON keeps only its denials (readJson left nothing else).
    const mayGrant = role.mayGrant && (error === undefined || role.managed);
    policyFiles.push({ origin: role.path, managed: role.managed, mayAllow: mayGrant, settings: value });
    if (!mayGrant) continue;
    const parsed = approvalSchema.safeParse(value);
    if (!parsed.success) continue;
    if (parsed.data.enableAllProjectMcpServers) approvals.all = true;
    for (const name of parsed.data.enabledMcpjsonServers ?? []) approvals.enabled.add(name);
    for (const name of parsed.data.disabledMcpjsonServers ?? []) approvals.disabled.add(name);
  }
  return { approvals, policy: mergeMcpPolicy(policyFiles, warnings) };
}

/**
 * Collects MCP servers in Claude Code's format: `--mcp-config` (highest), the project's `.mcp.json`,
 * the user's `~/.efferent/settings.json` `mcpServers` and, with Claude compatibility, `~/.claude.json`.
 * A server name defined twice keeps the higher scope. Project servers are enabled only in a trusted
 * folder and when approved; a bad entry is skipped with a warning and the others still load.
 */
export async function loadMcpConfiguration(options: LoadMcpConfigOptions): Promise<McpConfiguration> {
  const env = options.env ?? process.env;
  const warnings: string[] = [];
  const cwd = options.cwd ?? options.projectRoot;
  const sources: Source[] = [];
  for (const text of options.cliConfigs ?? []) {
    const source = await cliSource(text, cwd, warnings);
    if (source) sources.push(source);
  }
  if (!options.strict) {
    const candidates: Array<[McpConfigScope, string]> = [
      ['project', join(options.projectRoot, '.mcp.json')],
      ['user', join(options.home, '.efferent', 'settings.json')],
      ...(options.claudeCompat
        ? [['claude-user', join(options.home, '.claude.json')] as [McpConfigScope, string]]
        : []),
    ];
    for (const [scope, path] of candidates) {
      const within = scope === 'project' ? options.projectRoot : undefined;
      const source = await fileSource(scope, path, warnings, within);
      if (source) sources.push(source);
    }
  }
  const { approvals, policy } = await readApprovalsAndPolicy(options, warnings);
  const servers: ConfiguredMcpServer[] = [];
  const seen = new Set<string>();
  for (const source of sources) {
    for (const [name, raw] of Object.entries(source.servers)) {
      if (seen.has(name)) continue;
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
        warnings.push(
          `MCP server "${name}" in ${source.origin} was skipped: a server name may use only letters, digits, "_", "-" and "." (at most 64).`,
        );
        continue;
      }
      const config = parseServerEntry(raw, env, source.baseDir);
      if (typeof config === 'string') {
        warnings.push(`MCP server "${name}" in ${source.origin} was skipped: ${config}.`);
        continue;
      }
      seen.add(name);
      let status: ConfiguredMcpServer['status'] = 'enabled';
      const blockedBy = policyBlockReason(policy, name, config);
      if (blockedBy !== undefined) {
        status = 'blocked';
        warnings.push(`MCP server "${name}" in ${source.origin} was not started: ${blockedBy}.`);
      } else if (source.scope === 'project') {
        if (!options.trusted) status = 'untrusted';
        else if (approvals.disabled.has(name)) status = 'disabled';
        else if (!approvals.all && !approvals.enabled.has(name)) status = 'needs-approval';
      }
      servers.push({
        name,
        scope: source.scope,
        origin: source.origin,
        config,
        status,
        ...(blockedBy !== undefined ? { blockedBy } : {}),
      });
    }
  }
  const untrusted = servers.filter((server) => server.status === 'untrusted');
  if (untrusted.length > 0) {
    warnings.push(
      `${join(options.projectRoot, '.mcp.json')} defines ${untrusted.map((s) => `"${s.name}"`).join(', ')}, but this folder is not trusted, so they were not started. Run with --trust to trust it.`,
    );
  }
  const unapproved = servers.filter((server) => server.status === 'needs-approval');
  if (unapproved.length > 0) {
    warnings.push(
      `Project MCP servers ${unapproved.map((s) => `"${s.name}"`).join(', ')} from .mcp.json are not approved, so they were not started. Add them to "enabledMcpjsonServers" (or set "enableAllProjectMcpServers": true) in ~/.efferent/settings.json or .efferent/settings.local.json.`,
    );
  }
  return { servers, warnings };
}
