import { isAbsolute, resolve } from 'node:path';
import type { PermissionMode, RuleSource } from '../../core/index.ts';
import { errorMessage, locationVariables } from '../../core/index.ts';
import { type BuiltRules, buildRules, type RuleOrigin } from '../rules/build-rules.ts';
import type { PermissionRule } from '../rules/rule-types.ts';
import { formatSettingsWarning, type SettingsWarning } from './lenient-settings.ts';
import { unusedSettingsKeys } from './settings-keys.ts';
import type { LoadSettingsOptions, SettingsLayer } from './load-settings.ts';
import type { HooksLayer, LoadedSettings } from './settings-types.ts';
import { mergeSandboxSettings, type SandboxSettingsLayer } from './sandbox-settings.ts';
import { modeStrictness, untrustedProjectView } from './untrusted-settings.ts';

/** Rule sources from highest to lowest precedence. */
export const sourcePrecedence: readonly RuleSource[] = [
  'policySettings',
  'cliArg',
  'localSettings',
  'projectSettings',
  'userSettings',
  'session',
];

/**
 * Variables a settings `env` may not set: they move files efferent reads its own configuration from
 * (`EFFERENT_MANAGED_SETTINGS`, `EFFERENT_CONFIG_DIR`), and the environment built from the settings
 * is the one those are read from. A file below the policy must not be able to replace the policy.
 */
const settingsMayNotSet: ReadonlySet<string> = new Set(locationVariables.filter((name) => name !== 'HOME'));

/** Modes a project-level file may not select: they would skip the user's own judgement. */
const modesProjectMayNotSet = new Set<PermissionMode>(['bypassPermissions', 'auto']);

/**
 * Builds one list of rules leniently: a rule that does not parse is skipped with a warning naming the
 * file and key (Claude Code does the same), and the others still apply.
 */
function buildRulesLeniently(
  texts: readonly string[],
  behavior: 'allow' | 'deny' | 'ask',
  origin: RuleOrigin,
  warnings: SettingsWarning[],
): BuiltRules {
  const prefix = origin.keyPrefix ?? `permissions.${behavior}`;
  const result: BuiltRules = { rules: [], notices: [] };
  texts.forEach((text, index) => {
    const key = `${prefix}[${index}]`;
    try {
      const built = buildRules([text], behavior, { ...origin, keyPrefix: prefix });
      result.rules.push(...built.rules);
      // buildRules numbered the single rule 0; put its real position back.
      result.notices.push(...built.notices.map((notice) => notice.replaceAll(`${prefix}[0]`, key)));
    } catch (error) {
      const why = errorMessage(error)
        .replace(/^Settings .*?: key \S+ is invalid: /, '')
        .replace(/\.$/, '');
      warnings.push({
        file: origin.origin,
        key,
        reason: `rule ${JSON.stringify(text)} is not valid (${why}); it was skipped and the other rules apply.`,
      });
    }
  });
  return result;
}

/**
 * Merges settings layers: rule lists and directories concatenate, the highest level that sets a
 * scalar wins, and project-level files are trusted only as far as the workspace is.
 */
export function mergeSettings(
  unordered: readonly SettingsLayer[],
  options: LoadSettingsOptions & { projectRoot: string },
  fileWarnings: readonly SettingsWarning[] = [],
): LoadedSettings {
  const warnings: SettingsWarning[] = [...fileWarnings];
  const layers = [...unordered].sort(
    (a, b) => sourcePrecedence.indexOf(a.source) - sourcePrecedence.indexOf(b.source),
  );
  const notices: string[] = [];
  const allow: PermissionRule[] = [];
  const deny: PermissionRule[] = [];
  const ask: PermissionRule[] = [];
  const additionalDirectories: string[] = [];
  const hooks: HooksLayer[] = [];
  const env: Record<string, string> = {};
  const sandboxLayers: SandboxSettingsLayer[] = [];
  let allowedHttpHookUrls: string[] | undefined;
  let model: string | undefined;
  let cleanupPeriodDays: number | undefined;
  let statusLine: unknown;
  let statusLineFromPolicy = false;
  let defaultMode: PermissionMode | undefined;
  let disableBypass = false;
  let disableAuto = false;
  let disableAllHooks = false;
  // `disableAllHooks` below the managed policy switches off every hook except the policy's own.
  let disableUnmanagedHooks = false;
  // A mode an untrusted project chose, and the first mode a level below it chose: the stricter wins.
  let untrustedMode: PermissionMode | undefined;
  let modeBelowUntrusted: PermissionMode | undefined;
  const policy = layers.filter((layer) => layer.source === 'policySettings');
  const managedOnly = policy.some(
    (layer) =>
      layer.settings.permissions?.allowManagedPermissionRulesOnly === true ||
      layer.settings.allowManagedPermissionRulesOnly === true,
  );
  const managedHooksOnly = policy.some((layer) => layer.settings.allowManagedHooksOnly === true);

  for (const original of layers) {
    const untrusted = original.projectLevel && !options.trusted;
    let layer = original;
    if (untrusted) {
      // An untrusted project may only tighten: everything not known to do so is dropped here.
      const view = untrustedProjectView(original.settings);
      if (view.ignored.length > 0)
        notices.push(
          `Ignored ${view.ignored.join(', ')} in ${original.origin}: the workspace is not trusted, so its settings may only add deny and ask rules or choose the default, plan or dontAsk mode. Trust the folder to apply the rest.`,
        );
      layer = { ...original, settings: view.settings };
    }
    const permissions = layer.settings.permissions ?? {};
    const origin = { source: layer.source, origin: layer.origin, root: layer.root };
    const rulesAllowed = !managedOnly || layer.source === 'policySettings';
    if (!rulesAllowed && (permissions.allow?.length || permissions.deny?.length || permissions.ask?.length)) {
      notices.push(`Ignored permission rules in ${layer.origin}: policy allows managed rules only.`);
    }
    for (const behavior of ['deny', 'ask', 'allow'] as const) {
      const texts = permissions[behavior] ?? [];
      const built = buildRulesLeniently(texts, behavior, origin, warnings);
      notices.push(...built.notices);
      if (!rulesAllowed) continue;
      if (behavior === 'allow' && untrusted) {
        if (built.rules.length > 0) {
          notices.push(
            `Ignored ${built.rules.length} allow rule(s) in ${layer.origin}: the workspace is not trusted.`,
          );
        }
        continue;
      }
      ({ deny, ask, allow })[behavior].push(...built.rules);
    }
    const directories = permissions.additionalDirectories ?? [];
    if (untrusted && directories.length > 0) {
      notices.push(`Ignored additionalDirectories in ${layer.origin}: the workspace is not trusted.`);
    } else if (!rulesAllowed && directories.length > 0) {
      // A working directory allows reading it (and editing it in acceptEdits) like an allow rule.
      notices.push(
        `Ignored additionalDirectories in ${layer.origin}: policy allows managed rules only, and a working directory allows reads and edits as a rule would.`,
      );
    } else {
      for (const directory of directories) {
        additionalDirectories.push(isAbsolute(directory) ? directory : resolve(layer.root, directory));
      }
    }
    if (permissions.disableBypassPermissionsMode === 'disable') disableBypass = true;
    if (permissions.disableAutoMode === 'disable') disableAuto = true;
    const mode = permissions.defaultMode;
    if (mode !== undefined && defaultMode === undefined) {
      if (layer.projectLevel && modesProjectMayNotSet.has(mode)) {
        notices.push(`Ignored defaultMode "${mode}" in ${layer.origin}: project settings cannot select it.`);
      } else {
        defaultMode = mode;
        if (untrusted) untrustedMode = mode;
      }
    } else if (mode !== undefined && untrustedMode !== undefined && modeBelowUntrusted === undefined) {
      modeBelowUntrusted = mode;
    }
    if (layer.settings.hooks) {
      if (untrusted) notices.push(`Ignored hooks in ${layer.origin}: the workspace is not trusted.`);
      else if (managedHooksOnly && layer.source !== 'policySettings')
        notices.push(`Ignored hooks in ${layer.origin}: policy allows managed hooks only.`);
      else hooks.push({ source: layer.source, origin: layer.origin, hooks: layer.settings.hooks });
    }
    if (layer.settings.allowedHttpHookUrls)
      allowedHttpHookUrls = [...(allowedHttpHookUrls ?? []), ...layer.settings.allowedHttpHookUrls];
    if (layer.settings.disableAllHooks === true) {
      if (layer.source === 'policySettings') disableAllHooks = true;
      else disableUnmanagedHooks = true;
    }
    if (layer.settings.sandbox) sandboxLayers.push({ settings: layer.settings.sandbox, root: layer.root });
    const layerCleanup = layer.settings['cleanupPeriodDays'];
    if (cleanupPeriodDays === undefined && typeof layerCleanup === 'number' && Number.isInteger(layerCleanup))
      cleanupPeriodDays = layerCleanup;
    if (statusLine === undefined && layer.settings['statusLine'] !== undefined) {
      statusLine = layer.settings['statusLine'];
      statusLineFromPolicy = layer.source === 'policySettings';
    }
    const layerModel = layer.settings['model'];
    if (model === undefined && typeof layerModel === 'string' && layerModel.trim() !== '')
      model = layerModel.trim();
    if (layer.settings.env) {
      if (untrusted) notices.push(`Ignored env in ${layer.origin}: the workspace is not trusted.`);
      else
        for (const [name, value] of Object.entries(layer.settings.env)) {
          if (settingsMayNotSet.has(name)) {
            notices.push(
              `Ignored env ${name} in ${layer.origin}: a settings file cannot move where efferent reads its own configuration (the managed policy, its configuration folder); set it in the environment efferent starts in.`,
            );
            continue;
          }
          if (!Object.hasOwn(env, name)) env[name] = value;
        }
    }
  }

  const cli = options.cli ?? {};
  const cliOrigin = { source: 'cliArg' as const, root: options.cwd };
  const cliAllow = buildRulesLeniently(
    cli.allowedTools ?? [],
    'allow',
    {
      ...cliOrigin,
      origin: '--allowedTools',
      keyPrefix: '--allowedTools',
    },
    warnings,
  );
  const cliDeny = buildRulesLeniently(
    cli.disallowedTools ?? [],
    'deny',
    { ...cliOrigin, origin: '--disallowedTools', keyPrefix: '--disallowedTools' },
    warnings,
  );
  notices.push(...cliAllow.notices, ...cliDeny.notices);
  if (managedOnly && cliAllow.rules.length > 0)
    notices.push('Ignored --allowedTools: policy allows managed rules only.');
  else allow.push(...cliAllow.rules);
  deny.push(...cliDeny.rules);
  if (managedOnly && (cli.additionalDirectories?.length ?? 0) > 0)
    notices.push('Ignored --add-dir: policy allows managed rules only.');
  else
    for (const directory of cli.additionalDirectories ?? [])
      additionalDirectories.push(resolve(options.cwd, directory));

  // An untrusted project's mode may not undo a stricter one a lower level (the user) chose.
  if (
    untrustedMode !== undefined &&
    modeBelowUntrusted !== undefined &&
    modeStrictness[modeBelowUntrusted] > modeStrictness[untrustedMode]
  )
    defaultMode = modeBelowUntrusted;
  let mode: PermissionMode = cli.permissionMode ?? defaultMode ?? 'default';
  if (mode === 'bypassPermissions' && disableBypass) {
    notices.push('bypassPermissions mode is disabled by policy; starting in default mode.');
    mode = 'default';
  }
  if (mode === 'auto' && disableAuto) {
    notices.push('auto mode is disabled by policy; starting in default mode.');
    mode = 'default';
  }
  if (!options.trusted && layers.some((layer) => layer.projectLevel)) {
    notices.push(
      'The workspace is not trusted: its project settings were applied only where they make efferent stricter (deny and ask rules, the default, plan or dontAsk mode).',
    );
  }

  const keptHooks = disableUnmanagedHooks
    ? hooks.filter((layer) => layer.source === 'policySettings')
    : hooks;
  if (disableUnmanagedHooks && keptHooks.length > 0 && !disableAllHooks)
    notices.push('disableAllHooks below the managed policy keeps the policy hooks running.');

  // A status line is a command like a hook's (Claude Code: `disableAllHooks` turns off "all hooks and
  // any custom status line"): the switches that stop hooks stop it, and the policy's stays policy.
  if (
    statusLine !== undefined &&
    (disableAllHooks || (!statusLineFromPolicy && (disableUnmanagedHooks || managedHooksOnly)))
  ) {
    statusLine = undefined;
    notices.push(
      disableAllHooks || disableUnmanagedHooks
        ? 'Ignored statusLine: disableAllHooks turns off the status line command too.'
        : 'Ignored statusLine: the managed policy allows only its own hooks, and a status line command is one.',
    );
  }

  return {
    rules: { allow, deny, ask },
    defaultMode: mode,
    additionalDirectories: [...new Set(additionalDirectories)],
    disableBypassPermissionsMode: disableBypass,
    disableAutoMode: disableAuto,
    hooks: keptHooks,
    disableAllHooks,
    ...(allowedHttpHookUrls ? { allowedHttpHookUrls } : {}),
    env,
    ...(model ? { model } : {}),
    ...(statusLine !== undefined ? { statusLine } : {}),
    ...(cleanupPeriodDays !== undefined && cleanupPeriodDays > 0 ? { cleanupPeriodDays } : {}),
    sandbox: mergeSandboxSettings(sandboxLayers, { allow, deny, ask }, options.home),
    // Each skipped entry is also a notice, so every command that reports notices shows it once.
    notices: [...warnings.map(formatSettingsWarning), ...notices],
    warnings,
    unusedKeys: unusedSettingsKeys(layers),
    files: layers.map((layer) => ({ source: layer.source, origin: layer.origin })),
    projectRoot: options.projectRoot,
    cwd: options.cwd,
    home: options.home,
    trusted: options.trusted,
  };
}
