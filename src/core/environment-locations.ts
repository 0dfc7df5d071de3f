import { realpathSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { EfferentError } from './errors.ts';
import { isInsideDirectory } from './path-inside.ts';

/**
 * Locations that stand for the machine or the user — the home (user settings, the trust list, `~` in
 * rules), the managed policy (`EFFERENT_MANAGED_SETTINGS`), efferent's configuration folder
 * (`EFFERENT_CONFIG_DIR`: transcripts, user memory and commands, MCP tokens) — can be moved by
 * environment variables. The environment is not always the user's: a host that runs `efferent guard`
 * hands it the variables a project set (Claude Code's settings `env`, Gemini CLI's `.env` files).
 * A location the environment names is used only when it cannot be one of the project's own files:
 * it must be absolute (a relative one is read from the folder efferent runs in, the project) and,
 * links followed, lie outside the project folders — except inside the user's own home (the passwd
 * entry's) when a project folder is that home or holds it, where the files are the user's.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The canonical form of a path: links followed as far as the path exists, the rest appended. */
function canonical(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(existing);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(path);
      rest.push(existing.slice(parent === '/' ? 1 : parent.length + 1));
      existing = parent;
    }
  }
}

let passwdHome: string | null | undefined;

/** The home directory the system's user database gives (not `HOME`), or undefined where there is none. */
export function accountHome(): string | undefined {
  if (passwdHome === undefined) {
    try {
      const home = userInfo().homedir;
      passwdHome = home && isAbsolute(home) ? home : null;
    } catch {
      passwdHome = null;
    }
  }
  return passwdHome ?? undefined;
}

/**
 * Why `path`, named by the environment variable `name`, could be a file the project chose, or
 * undefined when it cannot. `projectFolders` are the project root and the working directory.
 */
export function projectChosenLocation(
  name: string,
  path: string,
  projectFolders: readonly string[],
): string | undefined {
  if (!isAbsolute(path))
    return `${name} is the relative path ${JSON.stringify(path)}, which would be read from the folder efferent runs in`;
  const location = canonical(path);
  for (const folder of projectFolders) {
    const project = canonical(folder);
    if (!isInsideDirectory(location, project)) continue;
    // A project that is the user's home, or holds it: the home's own files are the user's.
    const account = accountHome();
    if (account !== undefined) {
      const home = canonical(account);
      if (isInsideDirectory(home, project) && isInsideDirectory(location, home)) continue;
    }
    return `${name} names ${JSON.stringify(path)}, which lies inside the project ${project}${location !== resolve(path) ? ` (as ${location})` : ''}`;
  }
  return undefined;
}

/** A location and, when the environment's choice was refused, the sentence saying so. */
export interface CheckedLocation {
  path: string;
  notice?: string;
}

/**
 * The user's home for configuration: `HOME` (as `os.homedir()` reads it) unless a project could
 * have chosen it, then the user database's home. Throws when neither can be used.
 */
export function checkedUserHome(projectFolders: readonly string[], env: Env = process.env): CheckedLocation {
  const home = env['HOME'] || accountHome() || homedir();
  const problem = projectChosenLocation('HOME', home, projectFolders);
  if (problem === undefined) return { path: home };
  const account = accountHome();
  if (account === undefined || projectChosenLocation('the account home', account, projectFolders))
    throw new EfferentError(
      'settings_invalid',
      `${problem}; the user's settings and trust list cannot come from the project, and the system names no other home. Set HOME to your home directory.`,
    );
  return {
    path: account,
    notice: `${problem}; the user's settings, trust list and ~ are taken from ${account} (the account's home) instead.`,
  };
}

/** The variables that move a location standing for the machine or the user. */
export const locationVariables: readonly string[] = [
  'HOME',
  'EFFERENT_MANAGED_SETTINGS',
  'EFFERENT_CONFIG_DIR',
];

/** The managed policy file efferent reads where no variable moves it. */
export const installedManagedSettingsPath = '/etc/efferent/managed-settings.json';

/** The variable that moves the managed policy file (tests, systems with another layout). */
export const managedSettingsVariable = 'EFFERENT_MANAGED_SETTINGS';

/**
 * The managed policy file: `EFFERENT_MANAGED_SETTINGS` when set, unless a project could have chosen
 * it, or a policy is installed at the default place (the environment may name a policy where none
 * is installed, never replace the one an administrator installed).
 */
export function checkedManagedSettingsPath(
  projectFolders: readonly string[],
  env: Env = process.env,
  installed: string = installedManagedSettingsPath,
): CheckedLocation {
  const value = env[managedSettingsVariable];
  if (value === undefined || value === '') return { path: installed };
  const problem = projectChosenLocation(managedSettingsVariable, value, projectFolders);
  if (problem !== undefined)
    return { path: installed, notice: `${problem}; the managed policy is read from ${installed}.` };
  if (resolve(value) !== installed && existsAsEntry(installed))
    return {
      path: installed,
      notice: `${managedSettingsVariable} names ${JSON.stringify(value)}, but a managed policy is installed at ${installed}; the environment cannot replace it, so ${installed} applies.`,
    };
  return { path: value };
}

function existsAsEntry(path: string): boolean {
  try {
    realpathSync(path);
    return true;
  } catch {
    return false;
  }
}

/** efferent's configuration folder: `EFFERENT_CONFIG_DIR` unless a project could have chosen it, else `HOME/.efferent`. */
export function checkedConfigDir(
  home: string,
  projectFolders: readonly string[],
  env: Env = process.env,
): CheckedLocation {
  const fallback = join(home, '.efferent');
  const value = env['EFFERENT_CONFIG_DIR'];
  if (!value) return { path: fallback };
  const problem = projectChosenLocation('EFFERENT_CONFIG_DIR', value, projectFolders);
  if (problem === undefined) return { path: value };
  return { path: fallback, notice: `${problem}; efferent's configuration folder is ${fallback} instead.` };
}
