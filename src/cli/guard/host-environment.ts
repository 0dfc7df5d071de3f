import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  type CheckedLocation,
  checkedManagedSettingsPath,
  checkedUserHome,
  isInsideDirectory,
  locationVariables,
  readOwnFileSync,
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

function read(path: string, projectRoot: string): string | undefined {
  const result = readOwnFileSync(path, { maxBytes, within: projectRoot });
  return result.kind === 'read' ? result.text : undefined;
}

/** Names a `.env` file assigns (`NAME=…`, `export NAME=…`), as dotenv reads them, with their values. */
function dotenvAssignments(text: string): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const match of text.matchAll(
    /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*[=:][ \t]*(.*)$/gm,
  ))
    if (match[1]) found.push([match[1], (match[2] ?? '').trim().replace(/^(["'`])(.*)\1$/, '$2')]);
  return found;
}

/** Names a Claude Code settings file's `env` object sets (also in text that is not strict JSON: every key is looked at). */
function settingsEnvNames(text: string): string[] {
  try {
    const env = (JSON.parse(text) as { env?: unknown } | null)?.env;
    if (env !== null && typeof env === 'object' && !Array.isArray(env)) return Object.keys(env);
  } catch {
    // Not JSON: the host would not use it either; the names below still count, to fail closed.
  }
  return locationVariables.filter((name) => text.includes(`"${name}"`));
}

/** One variable a project's host configuration sets: its value (when known) and the file. */
export interface HostAssignment {
  name: string;
  value: string;
  file: string;
}

/** Every variable the project's host configuration sets (files under `projectRoot` only). */
export function projectHostAssignments(projectRoot: string, cwd: string): HostAssignment[] {
  const found: HostAssignment[] = [];
  for (const file of ['settings.json', 'settings.local.json']) {
    const path = join(projectRoot, '.claude', file);
    const text = read(path, projectRoot);
    if (text === undefined) continue;
    let env: unknown;
    try {
      env = (JSON.parse(text) as { env?: unknown } | null)?.env;
    } catch {
      env = undefined;
    }
    if (env !== null && typeof env === 'object' && !Array.isArray(env)) {
      for (const [name, value] of Object.entries(env))
        found.push({ name, value: typeof value === 'string' ? value : String(value), file: path });
    } else for (const name of settingsEnvNames(text)) found.push({ name, value: '', file: path });
  }
  // Gemini CLI: `.gemini/.env` or `.env` in the working directory, then in each folder above it.
  const start = isInsideDirectory(cwd, projectRoot) ? cwd : projectRoot;
  for (let folder = start; ; folder = dirname(folder)) {
    for (const name of [join('.gemini', '.env'), '.env']) {
      const path = join(folder, name);
      const text = read(path, projectRoot);
      if (text !== undefined)
        for (const [variable, value] of dotenvAssignments(text))
          found.push({ name: variable, value, file: path });
    }
    if (folder === projectRoot || dirname(folder) === folder) break;
  }
  return found;
}

/** The location variables the project's host configuration sets (files under `projectRoot` only). */
export function projectSetLocationVariables(projectRoot: string, cwd: string): Set<string> {
  return new Set(
    projectHostAssignments(projectRoot, cwd)
      .map(({ name }) => name)
      .filter((name) => locationVariables.includes(name)),
  );
}

/**
 * Variables that make the shell, or the dynamic linker under every program it starts, run code
 * before the command itself: a host that hands them to its shell runs the project's code first,
 * whatever the command. (Program-specific ones — `NODE_OPTIONS`, `GIT_CONFIG_*` — are not here.)
 */
const shellCodeVariables: ReadonlySet<string> = new Set([
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
  return assignments.find(({ name, value }) => {
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
