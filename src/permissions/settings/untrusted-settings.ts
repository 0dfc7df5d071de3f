import type { PermissionMode } from '../../core/index.ts';
import type { SettingsFile } from './settings-schema.ts';

/**
 * What an untrusted project's settings may do: only make efferent stricter. The filter is an
 * allowlist, so a key nobody reviewed (today's `hooks`, `env`, `disableAllHooks`, `claudeCompat`,
 * `additionalDirectories`, `allow`, or a key added tomorrow) is dropped, never trusted by default.
 */

/** Modes an untrusted project may choose: none of them allows more than `default` does. */
export const tighteningModes: ReadonlySet<PermissionMode> = new Set<PermissionMode>([
  'default',
  'plan',
  'dontAsk',
]);

/** How strict a mode is; higher never allows more. Used so an untrusted choice cannot undo a stricter one. */
export const modeStrictness: Readonly<Record<PermissionMode, number>> = {
  bypassPermissions: 0,
  auto: 1,
  acceptEdits: 1,
  bubble: 2,
  default: 2,
  plan: 3,
  dontAsk: 3,
};

/** `permissions` keys whose every value only tightens (validated by the schema before this runs). */
const tighteningPermissionKeys: ReadonlySet<string> = new Set([
  'deny',
  'ask',
  'defaultMode',
  'disableBypassPermissionsMode',
  'disableAutoMode',
]);

/** Top-level keys an untrusted project may set (`$schema` is an editor hint and changes nothing). */
const tighteningTopLevelKeys: ReadonlySet<string> = new Set(['permissions', '$schema']);

/** The settings an untrusted project may apply, and the keys that were dropped (`permissions.allow`, `hooks`). */
export function untrustedProjectView(settings: SettingsFile): { settings: SettingsFile; ignored: string[] } {
  const ignored: string[] = [];
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    if (!tighteningTopLevelKeys.has(key)) {
      ignored.push(key);
      continue;
    }
    kept[key] = value;
  }
  if (settings.permissions) {
    const permissions: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(settings.permissions)) {
      if (value === undefined) continue;
      if (!tighteningPermissionKeys.has(key)) {
        ignored.push(`permissions.${key}`);
        continue;
      }
      if (key === 'defaultMode' && !tighteningModes.has(value as PermissionMode)) {
        ignored.push(`permissions.defaultMode "${String(value)}"`);
        continue;
      }
      permissions[key] = value;
    }
    kept.permissions = permissions;
  }
  return { settings: kept as SettingsFile, ignored };
}
