import type { PermissionMode, RuleSource } from '../../core/index.ts';
import type { RuleSet } from '../rules/rule-types.ts';
import type { SandboxSettings } from './sandbox-settings.ts';
import type { SettingsWarning } from './lenient-settings.ts';
import type { UnusedSettingsKey } from './settings-keys.ts';
import type { HooksConfig } from './settings-schema.ts';

/** Hooks from one settings file, validated but otherwise as written. */
export interface HooksLayer {
  source: RuleSource;
  origin: string;
  hooks: HooksConfig;
}

/** All settings levels merged: what the permission engine and the hooks layer run on. */
export interface LoadedSettings {
  rules: RuleSet;
  /** The mode to start in (already checked against what each level may set). */
  defaultMode: PermissionMode;
  /** Absolute directories besides the project root where files may be read without asking. */
  additionalDirectories: string[];
  /** Policy forbids bypassPermissions mode. */
  disableBypassPermissionsMode: boolean;
  /** Policy forbids auto mode. */
  disableAutoMode: boolean;
  /**
   * Hook configuration per file, highest precedence first (the hooks layer merges them). A
   * `disableAllHooks` below the managed policy has already removed every layer but the policy's.
   */
  hooks: HooksLayer[];
  /** URL patterns `http` hooks may post to, from every file that sets them; undefined when none does. */
  allowedHttpHookUrls?: string[];
  /** True when the managed policy sets `disableAllHooks` (no hook runs at all). */
  disableAllHooks: boolean;
  /** The merged `sandbox` settings: network allowlist, read denies, hooks switch. */
  sandbox?: SandboxSettings;
  /** Environment for tools, higher levels winning. */
  env: Record<string, string>;
  /** The `model` key of the highest level that sets one (used when neither `--model` nor ANTHROPIC_MODEL is given). */
  model?: string;
  /** `cleanupPeriodDays` of the highest level that sets a whole number above zero: `run` deletes older transcripts. */
  cleanupPeriodDays?: number;
  /** `statusLine` of the highest level that sets one, as written (interactive `run` shows it). */
  statusLine?: unknown;
  /** Things the user should know: skipped entries, ignored rules, untrusted workspace, refused modes. */
  notices: string[];
  /** Entries (or whole files) skipped because they were invalid: file, key and why. */
  warnings: SettingsWarning[];
  /** Keys the files set that efferent does not use, with why (`efferent doctor` lists them). */
  unusedKeys: UnusedSettingsKey[];
  /** The files that were read, highest precedence first. */
  files: Array<{ source: RuleSource; origin: string }>;
  projectRoot: string;
  cwd: string;
  home: string;
  /** Whether the workspace was trusted when loading. */
  trusted: boolean;
}
