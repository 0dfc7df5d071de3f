import { statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  type CheckedLocation,
  checkedManagedSettingsPath,
  checkedUserHome,
  isInsideDirectory,
  locationVariables,
  readOwnFileSync,
  relaxedJson,
  withoutByteOrderMark,
} from '../../core/index.ts';

/**
 * The guard's environment is the host's, and a host writes a project's wishes into it: Claude Code
 * puts a trusted project's settings `env` (`.claude/settings.json`, `.claude/settings.local.json`)
 * into its own environment, Gemini CLI loads `.gemini/.env` and the nearest `.env` from the working
 * directory upwards. A variable that moves where the guard reads the user's and the machine's
 * configuration (`HOME`, `EFFERENT_MANAGED_SETTINGS`, `EFFERENT_CONFIG_DIR`) is therefore not taken
 * from the environment when one of those project files sets it: the project must not choose the
 * policy, the user settings or the trust list that judge it.
 */

const maxBytes = 1024 * 1024;

/**
 * A host file's text; undefined when there is none (missing, or a folder, which the hosts skip);
 * `{ unreadable }` when the host would read it and the guard cannot (larger than the bound, not a
 * regular file). A link out of the project is followed: the host loads what it leads to.
 */
function read(path: string, projectRoot: string): string | { unreadable: string } | undefined {
  const result = readOwnFileSync(path, { maxBytes, within: projectRoot });
  if (result.kind === 'read') return result.text;
  if (result.kind === 'missing') return undefined;
  try {
    if (statSync(path).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const followed = readOwnFileSync(path, { maxBytes });
  if (followed.kind === 'read') return followed.text;
  if (followed.kind === 'missing') return undefined;
  return { unreadable: followed.reason };
}

/**
 * dotenv's own line pattern (Gemini CLI reads `.env` files with dotenv): JavaScript's `\s` (form
 * feeds, no-break spaces, a byte order mark) around the name, a quoted value that may begin on the
 * next line or span lines, `#` comments after an unquoted value.
 */
const dotenvLine =
  /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/gm;

/** The assignments of a `.env` file as dotenv reads them, with their values. */
function dotenvParse(text: string): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  const lines = text.replace(/\r\n?/g, '\n');
  for (const match of lines.matchAll(dotenvLine)) {
    let value = (match[2] ?? '').trim();
    const quote = value[0];
    value = value.replace(/^(['"`])([\s\S]*)\1$/gm, '$2');
    if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\r/g, '\r');
    if (match[1]) found.push([match[1], value]);
  }
  return found;
}

/**
 * Names a `.env` file assigns, as dotenv reads them and, to fail closed where a reading could
 * differ, every line of the form `NAME=…` on its own (any blanks around it, any line break).
 */
function dotenvAssignments(text: string): Array<[string, string]> {
  const found = dotenvParse(text);
  for (const match of text.matchAll(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:][ \t]*(.*)$/gmu))
    if (match[1]) found.push([match[1], (match[2] ?? '').trim().replace(/^(["'`])(.*)\1$/, '$2')]);
  return found;
}

/** The value of a variable whose value could not be read: judged as unsafe as any. */
export const unreadableValue = '$(unreadable)';

/**
 * The `env` a Claude Code settings file sets: read past a byte order mark as Claude Code does, then as
 * strict JSON, then as JSON with comments; text that is neither gives every quoted key of the file,
 * each with an unreadable value (the host might read it some way this does not).
 */
function settingsEnv(text: string): Array<[string, string]> {
  const body = withoutByteOrderMark(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = relaxedJson(body);
  }
  if (parsed !== undefined) {
    const env = (parsed as { env?: unknown } | null)?.env;
    if (env === null || typeof env !== 'object' || Array.isArray(env)) return [];
    return Object.entries(env).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : String(value),
    ]);
  }
  const found: Array<[string, string]> = [];
  for (const match of body.matchAll(/"((?:[^"\\]|\\[\s\S])*)"\s*:/g)) {
    let name: unknown;
    try {
      name = JSON.parse(`"${match[1] ?? ''}"`);
    } catch {
      name = match[1];
    }
    if (typeof name === 'string') found.push([name, unreadableValue]);
  }
  return found;
}

/** A TOML string (basic or literal) as its text; undefined for a value of another shape. */
function tomlString(value: string): string | undefined {
  if (value.startsWith("'") && value.endsWith("'") && value.length >= 2 && !value.startsWith("'''"))
    return value.slice(1, -1);
  if (value.startsWith('"') && !value.startsWith('"""'))
    try {
      const parsed: unknown = JSON.parse(
        value.replace(/\\U([0-9A-Fa-f]{8})/g, (_all, hex: string) =>
          String.fromCodePoint(Number.parseInt(hex, 16)),
        ),
      );
      return typeof parsed === 'string' ? parsed : undefined;
    } catch {
      return undefined;
    }
  return undefined;
}

/**
 * The variables a Codex `.codex/config.toml` sets for its shell (`[shell_environment_policy]`'s
 * `set`, as a table, an inline table or dotted keys). Not a TOML parser: when the file names the
 * policy at all, every `KEY = value` pair in it counts (a name no list knows changes nothing), and
 * a value that is not a plain string is unreadable.
 */
function codexShellEnv(text: string): Array<[string, string]> {
  if (!text.includes('shell_environment_policy')) return [];
  const found: Array<[string, string]> = [];
  for (const match of withoutByteOrderMark(text).matchAll(
    /(?:^|[{,])[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|([A-Za-z0-9_.-]+))[ \t]*=[ \t]*("""|'''|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^,{}\n]*)/gm,
  )) {
    const quoted = match[1] === undefined ? undefined : tomlString(`"${match[1]}"`);
    const key = quoted ?? match[2] ?? match[3]?.split('.').at(-1) ?? '';
    if (key !== '') found.push([key, tomlString((match[4] ?? '').trim()) ?? unreadableValue]);
  }
  return found;
}

/** One variable a project's host configuration sets: its value (when known) and the file. */
export interface HostAssignment {
  name: string;
  value: string;
  file: string;
  /** Why the file could not be read: it may set any variable. */
  unreadable?: string;
}

/** The files in each folder from the working directory up to the project root that set host variables. */
const hostFiles: ReadonlyArray<[string, (text: string) => Array<[string, string]>]> = [
  [join('.gemini', '.env'), dotenvAssignments],
  ['.env', dotenvAssignments],
  [join('.codex', 'config.toml'), codexShellEnv],
];

/** Every variable the project's host configuration sets (files under `projectRoot` only). */
export function projectHostAssignments(projectRoot: string, cwd: string): HostAssignment[] {
  const found: HostAssignment[] = [];
  for (const file of ['settings.json', 'settings.local.json']) {
    const path = join(projectRoot, '.claude', file);
    const text = read(path, projectRoot);
    if (typeof text === 'object') found.push({ name: '*', value: unreadableValue, file: path, ...text });
    else if (text !== undefined)
      for (const [name, value] of settingsEnv(text)) found.push({ name, value, file: path });
  }
  // Gemini CLI: `.gemini/.env` or `.env` in the working directory, then in each folder above it.
  // Codex: `.codex/config.toml` in the project root and each folder down to the working directory.
  const start = isInsideDirectory(cwd, projectRoot) ? cwd : projectRoot;
  for (let folder = start; ; folder = dirname(folder)) {
    for (const [name, parse] of hostFiles) {
      const path = join(folder, name);
      const text = read(path, projectRoot);
      if (typeof text === 'object') found.push({ name: '*', value: unreadableValue, file: path, ...text });
      else if (text !== undefined)
        for (const [variable, value] of parse(text)) found.push({ name: variable, value, file: path });
    }
    if (folder === projectRoot || dirname(folder) === folder) break;
  }
  return found;
}

/** The location variables the project's host configuration sets (files under `projectRoot` only). */
export function projectSetLocationVariables(projectRoot: string, cwd: string): Set<string> {
  const assignments = projectHostAssignments(projectRoot, cwd);
  // A file the guard cannot read may set any of them.
  if (assignments.some(({ unreadable }) => unreadable !== undefined)) return new Set(locationVariables);
  return new Set(assignments.map(({ name }) => name).filter((name) => locationVariables.includes(name)));
}

/**
 * Variables that make the shell, or the dynamic linker under every program it starts, run code
 * before the command itself: a host that hands them to its shell runs the project's code first,
 * whatever the command. (Program-specific ones — `NODE_OPTIONS`, `GIT_CONFIG_*` — are not here.)
 */
const shellCodeVariables: ReadonlySet<string> = new Set([
  // zsh reads `$ZDOTDIR/.zshenv` for every command, and a login shell (Codex's default, Claude Code
  // on the user's shell) its profile from `HOME`: the project's, when the project sets them.
  'ZDOTDIR',
  'HOME',
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'LD_PRELOAD',
  'LD_AUDIT',
  'LD_LIBRARY_PATH',
  'DYLD_INSERT_LIBRARIES',
  'DYLD_LIBRARY_PATH',
  'DYLD_FRAMEWORK_PATH',
]);

/**
 * The first assignment in the project's host configuration that makes every shell command run
 * project code first, or undefined: a shell-start variable, an exported bash function, or a `PATH`
 * with a relative entry or one inside the project.
 */
export function shellCodeAssignment(
  projectRoot: string,
  cwd: string,
  assignments: readonly HostAssignment[] = projectHostAssignments(projectRoot, cwd),
): HostAssignment | undefined {
  return assignments.find(({ name, value, unreadable }) => {
    if (unreadable !== undefined) return true;
    if (shellCodeVariables.has(name) || name.startsWith('BASH_FUNC_')) return true;
    if (name !== 'PATH') return false;
    return value
      .split(':')
      .some(
        (entry) =>
          entry === '' ||
          !isAbsolute(entry) ||
          isInsideDirectory(resolve(entry), projectRoot) ||
          entry.includes('$'),
      );
  });
}

/** Where the guard reads the user's and the machine's configuration, and what it refused. */
export interface GuardLocations {
  home: string;
  managedSettingsPath: string;
  notices: string[];
}

/**
 * The home and the managed policy path for a guard decision: from the environment, minus what the
 * project's host configuration set, each refused when relative or inside the project.
 */
export function guardLocations(
  projectRoot: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  givenHome?: string,
): GuardLocations {
  const folders = [projectRoot, cwd];
  const setByProject = projectSetLocationVariables(projectRoot, cwd);
  const hostEnv: Record<string, string | undefined> = { ...env };
  const notices: string[] = [];
  for (const name of setByProject) {
    if (hostEnv[name] === undefined) continue;
    delete hostEnv[name];
    notices.push(
      `${name} is set by the project's own configuration (the agent passes it on), so the guard does not use it.`,
    );
  }
  const note = (checked: CheckedLocation): string => {
    if (checked.notice) notices.push(checked.notice);
    return checked.path;
  };
  const home = givenHome ?? note(checkedUserHome(folders, hostEnv));
  const managedSettingsPath = note(checkedManagedSettingsPath(folders, hostEnv));
  return { home, managedSettingsPath, notices };
}
