import { isAbsolute, join, resolve } from 'node:path';
import type { RuleSet } from '../rules/rule-types.ts';
import type { SandboxSettingsFile } from './settings-schema.ts';

/** One settings file's `sandbox` object with the folder its relative paths start from. */
export interface SandboxSettingsLayer {
  settings: SandboxSettingsFile;
  root: string;
}

/**
 * The merged `sandbox` settings (Claude Code's keys, plus efferent's switches). Lists are joined
 * across levels; a switch is on when any level turns it on.
 */
export interface SandboxSettings {
  /** Set when any level has a `sandbox.network` object: commands then reach the network through the proxies. */
  network?: { allowedDomains: string[]; deniedDomains: string[] };
  /** Absolute paths sandboxed processes may not read (`sandbox.filesystem.denyRead`). */
  denyRead: string[];
  /** Command hooks run in the sandbox (`sandbox.hooks`), with their own allowlist. */
  hooks?: { allowedDomains: string[] };
}

/** A `sandbox.filesystem` path: `~/…` in home, absolute as written (`//…` too), else below the file's folder. */
export function sandboxPath(path: string, root: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  if (path.startsWith('//')) return resolve(path.slice(1));
  return isAbsolute(path) ? resolve(path) : resolve(root, path);
}

/**
 * Merges the levels' `sandbox` objects. `WebFetch(domain:…)` allow rules join the allowlist only
 * when a level sets `sandbox.network.allowWebFetchDomains`.
 */
export function mergeSandboxSettings(
  layers: readonly SandboxSettingsLayer[],
  rules: RuleSet,
  home: string,
): SandboxSettings {
  const merged: SandboxSettings = { denyRead: [] };
  let webFetch = false;
  for (const { settings, root } of layers) {
    if (settings.network) {
      merged.network ??= { allowedDomains: [], deniedDomains: [] };
      merged.network.allowedDomains.push(...(settings.network.allowedDomains ?? []));
      merged.network.deniedDomains.push(...(settings.network.deniedDomains ?? []));
      if (settings.network.allowWebFetchDomains === true) webFetch = true;
    }
    for (const path of settings.filesystem?.denyRead ?? [])
      merged.denyRead.push(sandboxPath(path, root, home));
    const hooks = settings.hooks;
    if (hooks === true || (typeof hooks === 'object' && hooks.enabled !== false)) {
      merged.hooks ??= { allowedDomains: [] };
      if (typeof hooks === 'object') merged.hooks.allowedDomains.push(...(hooks.allowedDomains ?? []));
    }
  }
  if (webFetch && merged.network) {
    for (const rule of rules.allow) {
      const content = rule.value.ruleContent;
      if (rule.value.toolName === 'WebFetch' && content?.startsWith('domain:'))
        merged.network.allowedDomains.push(content.slice('domain:'.length));
    }
  }
  if (merged.network) {
    merged.network.allowedDomains = [...new Set(merged.network.allowedDomains)];
    merged.network.deniedDomains = [...new Set(merged.network.deniedDomains)];
  }
  merged.denyRead = [...new Set(merged.denyRead)];
  return merged;
}
