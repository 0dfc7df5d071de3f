import type { SettingsLayer } from './load-settings.ts';

/**
 * What efferent does with each settings key a Claude Code user may have: applied, or not used and
 * why. `efferent doctor` lists every key of the second kind, so none is ignored silently.
 */

/** Top-level keys efferent applies. */
export const appliedSettingsKeys: ReadonlySet<string> = new Set([
  '$schema',
  'permissions',
  'hooks',
  'env',
  'model',
  'cleanupPeriodDays',
  'statusLine',
  'disableAllHooks',
  'allowManagedHooksOnly',
  'allowedHttpHookUrls',
  'allowManagedPermissionRulesOnly',
  'claudeCompat',
  'mcpServers',
  'enableAllProjectMcpServers',
  'enabledMcpjsonServers',
  'disabledMcpjsonServers',
  'allowedMcpServers',
  'deniedMcpServers',
  'allowManagedMcpServersOnly',
  'sandbox',
]);

/** `permissions` keys efferent applies. */
export const appliedPermissionKeys: ReadonlySet<string> = new Set([
  'allow',
  'deny',
  'ask',
  'defaultMode',
  'additionalDirectories',
  'disableBypassPermissionsMode',
  'disableAutoMode',
  'allowManagedPermissionRulesOnly',
]);

/** Why a known Claude Code key is not used, in words a user can act on. */
const unsupportedReasons: Readonly<Record<string, string>> = {
  includeCoAuthoredBy: 'not used: efferent writes no commits or pull requests of its own.',
  attribution: 'not used: efferent writes no commits or pull requests of its own.',
  apiKeyHelper: 'not supported: set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment.',
  outputStyle: 'not supported: use `efferent run --system-prompt`.',
  forceLoginMethod: 'not used: efferent has no login.',
  enabledPlugins: 'not supported: efferent has no plugins.',
  alwaysThinkingEnabled: 'not supported.',
  spinnerTipsEnabled: 'not used: efferent has no spinner tips.',
  theme: 'not used: efferent has no themes.',
  hasTrustDialogAccepted: 'not used: trust a folder with `efferent run --trust`.',
};

/** One key a settings file sets that efferent does not use. */
export interface UnusedSettingsKey {
  file: string;
  key: string;
  reason: string;
}

/** Every key in the files read that efferent does not use, with the reason. */
export function unusedSettingsKeys(layers: readonly SettingsLayer[]): UnusedSettingsKey[] {
  const unused: UnusedSettingsKey[] = [];
  for (const layer of layers) {
    for (const key of Object.keys(layer.settings)) {
      if (appliedSettingsKeys.has(key)) continue;
      unused.push({
        file: layer.origin,
        key,
        reason: unsupportedReasons[key] ?? 'not a key efferent knows; it is kept in the file and not used.',
      });
    }
    for (const key of Object.keys(layer.settings.permissions ?? {})) {
      if (appliedPermissionKeys.has(key)) continue;
      unused.push({
        file: layer.origin,
        key: `permissions.${key}`,
        reason: 'not a permissions key efferent knows; it is not used.',
      });
    }
  }
  return unused;
}
