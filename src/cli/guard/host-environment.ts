import { dirname, join } from 'node:path';
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

/** Names a `.env` file assigns (`NAME=…`, `export NAME=…`), as dotenv reads them. */
function dotenvNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*[=:]/gm))
    if (match[1]) names.push(match[1]);
  return names;
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

/** The location variables the project's host configuration sets (files under `projectRoot` only). */
export function projectSetLocationVariables(projectRoot: string, cwd: string): Set<string> {
  const names: string[] = [];
  for (const file of ['settings.json', 'settings.local.json']) {
    const text = read(join(projectRoot, '.claude', file), projectRoot);
    if (text !== undefined) names.push(...settingsEnvNames(text));
  }
  const geminiEnv = read(join(projectRoot, '.gemini', '.env'), projectRoot);
  if (geminiEnv !== undefined) names.push(...dotenvNames(geminiEnv));
  // Gemini CLI: `.gemini/.env` or `.env` in the working directory, then in each folder above it.
  const start = isInsideDirectory(cwd, projectRoot) ? cwd : projectRoot;
  for (let folder = start; ; folder = dirname(folder)) {
    for (const name of [join('.gemini', '.env'), '.env']) {
      const text = read(join(folder, name), projectRoot);
      if (text !== undefined) names.push(...dotenvNames(text));
    }
    if (folder === projectRoot || dirname(folder) === folder) break;
  }
  return new Set(names.filter((name) => locationVariables.includes(name)));
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
