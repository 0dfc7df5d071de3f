import type { McpServerConfig } from './config.ts';

/**
 * Claude Code's MCP server policy: `allowedMcpServers` / `deniedMcpServers` entries, each naming a
 * server by exactly one of `serverName`, `serverCommand` (the exact command line of a stdio server)
 * or `serverUrl` (a remote server's URL, `*` matching any run of characters).
 */
export type McpPolicyEntry = { serverName: string } | { serverCommand: string[] } | { serverUrl: string };

/** One policy entry and the settings file it came from. */
export interface SourcedPolicyEntry {
  entry: McpPolicyEntry;
  origin: string;
}

/** The merged policy of every settings file read. */
export interface McpServerPolicy {
  /** Every `deniedMcpServers` entry: a match never starts. */
  denied: SourcedPolicyEntry[];
  /** `allowedMcpServers` entries; `undefined` when no file sets the key (no restriction). */
  allowed: SourcedPolicyEntry[] | undefined;
  /** `allowManagedMcpServersOnly` in the managed file: only its allowlist counts. */
  managedOnly: boolean;
  /** The managed file that set `allowManagedMcpServersOnly`, for messages. */
  managedOrigin?: string;
}

/** One settings file's policy keys, before merging. */
export interface McpPolicyFile {
  origin: string;
  managed: boolean;
  /** Whether the file may widen the policy (an untrusted project's files may only deny). */
  mayAllow: boolean;
  settings: unknown;
}

/** Parses one entry; a string says why it was dropped. */
export function parsePolicyEntry(raw: unknown): McpPolicyEntry | string {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return 'an entry must be an object such as {"serverName": "github"}';
  const keys = Object.keys(raw).filter((key) => ['serverName', 'serverCommand', 'serverUrl'].includes(key));
  if (keys.length !== 1) return 'an entry needs exactly one of "serverName", "serverCommand" or "serverUrl"';
  const value = (raw as Record<string, unknown>)[keys[0] as string];
  if (keys[0] === 'serverCommand') {
    if (!Array.isArray(value) || value.length === 0 || !value.every((part) => typeof part === 'string'))
      return '"serverCommand" must be a non-empty array of strings (the command and its arguments)';
    return { serverCommand: value as string[] };
  }
  if (typeof value !== 'string' || value === '') return `"${keys[0]}" must be a non-empty string`;
  return keys[0] === 'serverName' ? { serverName: value } : { serverUrl: value };
}

function entriesOf(
  file: McpPolicyFile,
  key: 'allowedMcpServers' | 'deniedMcpServers',
  warnings: string[],
): SourcedPolicyEntry[] | undefined {
  const raw = (file.settings as Record<string, unknown> | null)?.[key];
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    warnings.push(`${key} in ${file.origin} is not a list of entries; it was ignored.`);
    return undefined;
  }
  const entries: SourcedPolicyEntry[] = [];
  for (const [index, item] of raw.entries()) {
    const entry = parsePolicyEntry(item);
    if (typeof entry === 'string') {
      warnings.push(`${key}[${index}] in ${file.origin} was skipped: ${entry}.`);
      continue;
    }
    entries.push({ entry, origin: file.origin });
  }
  return entries;
}

/**
 * Merges the policy keys of every file, as Claude Code does: denylists from every file add up;
 * allowlists add up too, unless the managed file sets `allowManagedMcpServersOnly`, when only the
 * managed allowlist counts. A malformed entry is skipped with a warning; the rest apply.
 */
export function mergeMcpPolicy(files: readonly McpPolicyFile[], warnings: string[]): McpServerPolicy {
  const managedOnlyFile = files.find(
    (file) =>
      file.managed &&
      (file.settings as { allowManagedMcpServersOnly?: unknown } | null)?.allowManagedMcpServersOnly === true,
  );
  const policy: McpServerPolicy = {
    denied: [],
    allowed: undefined,
    managedOnly: managedOnlyFile !== undefined,
    ...(managedOnlyFile ? { managedOrigin: managedOnlyFile.origin } : {}),
  };
  for (const file of files) {
    policy.denied.push(...(entriesOf(file, 'deniedMcpServers', warnings) ?? []));
    if (!file.mayAllow || (policy.managedOnly && !file.managed)) continue;
    const allowed = entriesOf(file, 'allowedMcpServers', warnings);
    if (allowed) policy.allowed = [...(policy.allowed ?? []), ...allowed];
  }
  // Only the managed allowlist counts, and a managed file without one allows no server at all.
  if (policy.managedOnly && policy.allowed === undefined) policy.allowed = [];
  return policy;
}

/** `*` matches any run of characters; the comparison ignores case (hosts and schemes do). */
export function urlPatternMatches(pattern: string, url: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 'i').test(url);
}

function commandLine(config: McpServerConfig): string[] | undefined {
  return config.type === 'stdio' ? [config.command, ...config.args] : undefined;
}

/** Whether `entry` names this server. */
export function policyEntryMatches(entry: McpPolicyEntry, name: string, config: McpServerConfig): boolean {
  if ('serverName' in entry) return entry.serverName === name;
  if ('serverCommand' in entry) {
    const line = commandLine(config);
    return (
      line !== undefined &&
      line.length === entry.serverCommand.length &&
      line.every((part, index) => part === entry.serverCommand[index])
    );
  }
  return config.type !== 'stdio' && urlPatternMatches(entry.serverUrl, config.url);
}

function describeEntry(entry: McpPolicyEntry): string {
  return JSON.stringify(entry);
}

/**
 * Why the policy blocks this server, or `undefined` when it may start. The denylist wins. With an
 * allowlist, a stdio server must match a `serverCommand` entry when the list has any (else a
 * `serverName` entry), and a remote server a `serverUrl` entry when the list has any (else a
 * `serverName` entry): a name is a label the user picks, so it counts only when nothing stricter
 * is listed for that kind of server.
 */
export function policyBlockReason(
  policy: McpServerPolicy,
  name: string,
  config: McpServerConfig,
): string | undefined {
  const denied = policy.denied.find(({ entry }) => policyEntryMatches(entry, name, config));
  if (denied) return `deniedMcpServers in ${denied.origin} blocks it (${describeEntry(denied.entry)})`;
  if (policy.allowed === undefined) return undefined;
  const strictKey = config.type === 'stdio' ? 'serverCommand' : 'serverUrl';
  const strict = policy.allowed.some(({ entry }) => strictKey in entry);
  const allowed = policy.allowed.some(
    ({ entry }) =>
      (strict ? strictKey in entry : 'serverName' in entry) && policyEntryMatches(entry, name, config),
  );
  if (allowed) return undefined;
  const scope = policy.managedOnly
    ? `the managed allowedMcpServers (allowManagedMcpServersOnly in ${policy.managedOrigin})`
    : 'allowedMcpServers';
  const what = strict
    ? config.type === 'stdio'
      ? 'its command line matches no "serverCommand" entry'
      : 'its URL matches no "serverUrl" entry'
    : 'its name matches no "serverName" entry';
  return `${what} of ${scope}; ask the administrator to allow it, or remove it from your configuration`;
}
