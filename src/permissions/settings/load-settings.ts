import { dirname, isAbsolute, join, resolve } from 'node:path';
import { EfferentError, type PermissionMode, type RuleSource } from '../../core/index.ts';
import { parseSettingsText, readSettingsFile } from './read-settings-file.ts';
import type { SettingsFile } from './settings-schema.ts';
import { mergeSettings } from './merge-settings.ts';
import type { LoadedSettings } from './settings-types.ts';

/** The settings file policy administrators install; overridable for tests and other layouts. */
export const defaultManagedSettingsPath = '/etc/efferent/managed-settings.json';

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
  /** Also read Claude Code's `.claude/` files (a settings file can ask for it with `"claudeCompat": true`). */
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

async function cliLayer(options: LoadSettingsOptions): Promise<SettingsLayer | undefined> {
  const text = options.cli?.settings;
  if (text === undefined) return undefined;
  if (text.trimStart().startsWith('{')) {
    const settings = parseSettingsText(text, '--settings');
    return { source: 'cliArg', origin: '--settings', root: options.cwd, projectLevel: false, settings };
  }
  const path = isAbsolute(text) ? text : resolve(options.cwd, text);
  const settings = await readSettingsFile(path, options.signal);
  if (!settings)
    throw new EfferentError(
      'settings_invalid',
      `Settings file ${path} given with --settings does not exist.`,
    );
  return { source: 'cliArg', origin: path, root: dirname(path), projectLevel: false, settings };
}

/**
 * Loads every settings level (managed policy, `--settings`, project local, project, user; `.claude/`
 * files too when compatibility is on) and merges them. Invalid files throw `settings_invalid`.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const projectRoot = options.projectRoot ?? options.cwd;
  const managedPath = options.managedSettingsPath ?? defaultManagedSettingsPath;
  const read = (path: string) => readSettingsFile(path, options.signal);
  const layers: SettingsLayer[] = [];
  const add = (layer: Omit<SettingsLayer, 'settings'>, settings: SettingsFile | undefined) => {
    if (settings) layers.push({ ...layer, settings });
  };

  add(
    { source: 'policySettings', origin: managedPath, root: projectRoot, projectLevel: false },
    await read(managedPath),
  );
  const cli = await cliLayer(options);
  if (cli) layers.push(cli);

  const efferentFiles = async (dir: string, project: string, home: string) => {
    const local = join(project, dir, 'settings.local.json');
    const shared = join(project, dir, 'settings.json');
    const user = join(home, dir, 'settings.json');
    add({ source: 'localSettings', origin: local, root: options.cwd, projectLevel: true }, await read(local));
    add({ source: 'projectSettings', origin: shared, root: project, projectLevel: true }, await read(shared));
    add(
      { source: 'userSettings', origin: user, root: join(home, dir), projectLevel: false },
      await read(user),
    );
  };
  await efferentFiles('.efferent', projectRoot, options.home);
  // An untrusted project cannot switch compatibility on: that would load more allow rules.
  const compat =
    options.claudeCompat ??
    layers.some((layer) => layer.settings.claudeCompat === true && (options.trusted || !layer.projectLevel));
  if (compat) await efferentFiles('.claude', projectRoot, options.home);

  return mergeSettings(layers, { ...options, projectRoot });
}
