import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  checkedManagedSettingsPath,
  EfferentError,
  installedManagedSettingsPath,
  managedSettingsVariable,
  type PermissionMode,
  type RuleSource,
} from '../../core/index.ts';
import { type LenientSettings, parseSettingsLenient, type SettingsWarning } from './lenient-settings.ts';
import { readSettingsFileLenient } from './read-settings-file.ts';
import type { SettingsFile } from './settings-schema.ts';
import { mergeSettings } from './merge-settings.ts';
import type { LoadedSettings } from './settings-types.ts';

/** The settings file policy administrators install; overridable for tests and other layouts. */
export const defaultManagedSettingsPath = installedManagedSettingsPath;

/** The environment variable that moves the managed policy file (tests, systems with another layout). */
export const managedSettingsEnvVar = managedSettingsVariable;

/**
 * The managed policy path: `EFFERENT_MANAGED_SETTINGS` when set, else {@link defaultManagedSettingsPath}.
 * The variable is not followed when it is relative or leads into `projectFolders`, nor when a policy
 * is installed at the default place (see `checkedManagedSettingsPath`).
 */
export function managedSettingsPathFrom(
  env: Readonly<Record<string, string | undefined>>,
  projectFolders: readonly string[] = [],
): string {
  return checkedManagedSettingsPath(projectFolders, env).path;
}

/** What the command line contributes. */
export interface CliSettingsInput {
  /** `--settings FILE|JSON`: a path, or JSON text when it starts with `{`. */
  settings?: string;
  /** `--allowedTools`: rules added as cliArg allow rules. */
  allowedTools?: readonly string[];
  /** `--disallowedTools`: rules added as cliArg deny rules. */
  disallowedTools?: readonly string[];
  /** `--permission-mode`. */
  permissionMode?: PermissionMode;
  /** `--add-dir`. */
  additionalDirectories?: readonly string[];
}

/** Everything {@link loadSettings} needs; no ambient cwd or home is consulted. */
export interface LoadSettingsOptions {
  cwd: string;
  home: string;
  /** The project root (`/x` rules in project settings start here); defaults to `cwd`. */
  projectRoot?: string;
  /** Whether the user trusts this workspace; an untrusted project's settings may only tighten (deny and ask rules, stricter modes). */
  trusted: boolean;
  /** Path of the managed policy file; default `/etc/efferent/managed-settings.json`. */
  managedSettingsPath?: string;
  cli?: CliSettingsInput;
  /**
   * Whether to read Claude Code's `.claude/` files too. Default: yes, unless a settings file says
   * `"claudeCompat": false` (an untrusted project cannot turn it off: that could drop deny rules).
   */
  claudeCompat?: boolean;
  signal?: AbortSignal;
}

/** One settings file that was found, with the facts merging needs. */
export interface SettingsLayer {
  source: RuleSource;
  /** The file path, or `--settings` for inline JSON. */
  origin: string;
  /** Directory `/x` path rules in this file start from. */
  root: string;
  /** Project-level files (project and local) obey workspace trust. */
  projectLevel: boolean;
  settings: SettingsFile;
}

async function cliLayer(
  options: LoadSettingsOptions,
  warnings: SettingsWarning[],
): Promise<SettingsLayer | undefined> {
  const text = options.cli?.settings;
  if (text === undefined) return undefined;
  const use = (read: LenientSettings, origin: string, root: string): SettingsLayer => {
    warnings.push(...read.warnings);
    // The user typed this flag: text that is not JSON at all is an error, not a skipped file.
    if (!read.settings)
      throw new EfferentError(
        'settings_invalid',
        `Settings ${origin} given with --settings cannot be used: ${read.warnings.map((warning) => warning.reason).join(' ')}`,
      );
    return { source: 'cliArg', origin, root, projectLevel: false, settings: read.settings };
  };
  if (text.trimStart().startsWith('{'))
    return use(
      parseSettingsLenient(text, '--settings', { recoverTightening: false }),
      '--settings',
      options.cwd,
    );
  const path = isAbsolute(text) ? text : resolve(options.cwd, text);
  const read = await readSettingsFileLenient(path, options.signal, undefined, { recoverTightening: false });
  if (!read)
    throw new EfferentError(
      'settings_invalid',
      `Settings file ${path} given with --settings does not exist; check the path.`,
    );
  return use(read, path, dirname(path));
}

/**
 * Loads every settings level (managed policy, `--settings`, project local, project, user; `.claude/`
 * files too, unless compatibility is off) and merges them. A bad entry is skipped with a warning; a
 * file that is not JSON is skipped with a warning; only a bad `--settings` throws `settings_invalid`.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const projectRoot = options.projectRoot ?? options.cwd;
  const managedPath = options.managedSettingsPath ?? defaultManagedSettingsPath;
  const warnings: SettingsWarning[] = [];
  // A project's own files are read only from inside it (`within`): the repository chooses what they are.
  const read = async (path: string, within?: string): Promise<SettingsFile | undefined> => {
    const result = await readSettingsFileLenient(path, options.signal, within);
    if (!result) return undefined;
    warnings.push(...result.warnings);
    return result.settings;
  };
  const layers: SettingsLayer[] = [];
  const add = (layer: Omit<SettingsLayer, 'settings'>, settings: SettingsFile | undefined) => {
    if (settings) layers.push({ ...layer, settings });
  };

  add(
    { source: 'policySettings', origin: managedPath, root: projectRoot, projectLevel: false },
    await read(managedPath),
  );
  const cli = await cliLayer(options, warnings);
  if (cli) layers.push(cli);

  const efferentFiles = async (dir: string, project: string, home: string) => {
    const local = join(project, dir, 'settings.local.json');
    const shared = join(project, dir, 'settings.json');
    const user = join(home, dir, 'settings.json');
    add(
      { source: 'localSettings', origin: local, root: options.cwd, projectLevel: true },
      await read(local, project),
    );
    add(
      { source: 'projectSettings', origin: shared, root: project, projectLevel: true },
      await read(shared, project),
    );
    add(
      { source: 'userSettings', origin: user, root: join(home, dir), projectLevel: false },
      await read(user),
    );
  };
  await efferentFiles('.efferent', projectRoot, options.home);
  // On by default; an untrusted project cannot switch it off (that could drop .claude/ deny rules).
  const compat =
    options.claudeCompat ??
    !layers.some(
      (layer) => layer.settings.claudeCompat === false && (options.trusted || !layer.projectLevel),
    );
  if (compat) await efferentFiles('.claude', projectRoot, options.home);
  return mergeSettings(layers, { ...options, projectRoot }, warnings);
}
