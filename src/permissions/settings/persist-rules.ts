import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EfferentError, liesPhysicallyInside, readOwnFile } from '../../core/index.ts';
import { maxSettingsFileBytes, parseSettingsText } from './read-settings-file.ts';

/** At most this many rules are saved from one "always allow" answer (one per subcommand). */
export const maxRulesPerAnswer = 5;

/** Where "always allow" answers go: the project's local, uncommitted settings. */
export function localSettingsPath(projectRoot: string): string {
  return join(projectRoot, '.efferent', 'settings.local.json');
}

/**
 * Adds allow rules to `.efferent/settings.local.json`, keeping every other key as written.
 * Writes a temp file and renames it over the original, so a crash never leaves half a file.
 * Returns the rules actually added (duplicates skipped, at most {@link maxRulesPerAnswer}).
 */
export async function persistAllowRules(projectRoot: string, rules: readonly string[]): Promise<string[]> {
  const path = localSettingsPath(projectRoot);
  let json: Record<string, unknown> = {};
  // The file and its folder must lie inside the project: a repository may ship `.efferent` as a link.
  if (existsSync(dirname(path)) && !liesPhysicallyInside(dirname(path), projectRoot))
    throw new EfferentError(
      'settings_invalid',
      `Permission rules were not saved: ${dirname(path)} leads through a symbolic link out of the project. Remove the link, or add the rule to a settings file yourself.`,
    );
  const read = await readOwnFile(path, { maxBytes: maxSettingsFileBytes, within: projectRoot });
  if (read.kind === 'refused')
    throw new EfferentError(
      'settings_invalid',
      `Permission rules were not saved: ${read.reason}. Remove it, or add the rule to a settings file yourself.`,
    );
  const text = read.kind === 'read' ? read.text : undefined;
  if (text !== undefined) {
    parseSettingsText(text, `file ${path}`);
    json = JSON.parse(text) as Record<string, unknown>;
  }
  const permissions = (json.permissions ?? {}) as Record<string, unknown>;
  const existing = Array.isArray(permissions.allow) ? (permissions.allow as string[]) : [];
  const added = [...new Set(rules)].filter((rule) => !existing.includes(rule)).slice(0, maxRulesPerAnswer);
  if (added.length === 0) return [];
  json.permissions = { ...permissions, allow: [...existing, ...added] };
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(json, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new EfferentError('settings_invalid', `Could not save permission rules to ${path}.`, {
      cause: error,
    });
  }
  return added;
}
