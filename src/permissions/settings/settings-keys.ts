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

/** `sandbox` keys efferent applies. */
const appliedSandboxKeys: ReadonlySet<string> = new Set(['network', 'filesystem', 'hooks']);

/** Why a Claude Code `sandbox` key is not used. */
const unsupportedSandboxReasons: Readonly<Record<string, string>> = {
  enabled:
    'not used: Bash always runs in the sandbox where bubblewrap (Linux) or sandbox-exec (macOS) is available; a command that must leave it asks (dangerouslyDisableSandbox).',
  excludedCommands:
    'not supported: no command is exempted from the sandbox by name; a command that must leave it asks, and an allow rule can approve it.',
  autoAllowBashIfSandboxed:
    'not supported: running in the sandbox never replaces a permission decision; use allow rules.',
  allowUnsandboxedCommands:
    'not used: leaving the sandbox always asks (dangerouslyDisableSandbox), and deny rules still apply.',
  enableWeakerNestedSandbox: 'not supported: the sandbox is never weakened.',
  ignoreViolations: 'not supported: every blocked access is reported.',
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
    const sandbox = layer.settings.sandbox;
    for (const key of Object.keys(sandbox && typeof sandbox === 'object' ? sandbox : {})) {
      if (appliedSandboxKeys.has(key)) continue;
      unused.push({
        file: layer.origin,
        key: `sandbox.${key}`,
        reason: unsupportedSandboxReasons[key] ?? 'not a sandbox key efferent knows; it is not used.',
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
