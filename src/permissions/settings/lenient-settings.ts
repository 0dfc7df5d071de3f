import { z } from 'zod';
import { errorMessage, relaxedJson, withoutByteOrderMark } from '../../core/index.ts';
import { parseRule } from '../rules/parse-rule.ts';
import { type SettingsFile, settingsFileSchema } from './settings-schema.ts';
import { untrustedProjectView } from './untrusted-settings.ts';

/**
 * Claude Code's leniency: one bad rule or value is skipped with a warning naming the file, the key and
 * why, and the rest of the file applies. Only text that is not JSON (or not a JSON object) skips the
 * whole file.
 */

/** One problem found in a settings file; the entry it names was skipped. */
export interface SettingsWarning {
  /** The file path, or `--settings` for inline JSON. */
  file: string;
  /** The key path, e.g. `permissions.allow[2]`; `(file)` when the whole file was skipped. */
  key: string;
  /** Why, as a sentence ending with a period. */
  reason: string;
}

/** The warning as one line for a person: file, key and why. */
export function formatSettingsWarning(warning: SettingsWarning): string {
  const where =
    warning.key === '(file)'
      ? 'the whole file was skipped'
      : warning.key === '(syntax)'
        ? 'most of the file was skipped'
        : `skipped ${warning.key}`;
  return `Settings ${warning.file}: ${where}: ${warning.reason}`;
}

/** A parsed settings file with the entries that were kept and a warning for each one skipped. */
export interface LenientSettings {
  /** `undefined` when the whole file was skipped (not JSON, or not an object). */
  settings: SettingsFile | undefined;
  warnings: SettingsWarning[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first zod issue as a sentence, with the value that was found. */
function reasonOf(error: z.ZodError, value: unknown): string {
  const issue = error.issues[0];
  const found = JSON.stringify(value);
  const shown = found === undefined ? String(value) : found.length > 60 ? `${found.slice(0, 57)}...` : found;
  const sub = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
  const message = (issue?.message ?? 'invalid value').replace(/\.$/, '');
  return `${message}${sub} (found ${shown}); the entry was skipped and the rest of the file applies.`;
}

/** Sub-schemas of the file's known keys, taken from the strict schema so both agree. */
const topShape = settingsFileSchema.shape;
const permissionsShape = (topShape.permissions.unwrap() as z.ZodObject<z.ZodRawShape>).shape;

/** A permission rule: a string in Claude Code's rule syntax (checked here so the warning has its index). */
const ruleSchema = z.string().superRefine((text, context) => {
  try {
    parseRule(text);
  } catch (error) {
    // `Edit:*` and `Bash:npm*` are common in published settings; say what the valid form is.
    const colon = /^([A-Za-z][A-Za-z0-9_]*):(.*)$/.exec(text);
    const hint = colon ? `; write ${colon[2] === '*' ? colon[1] : `${colon[1]}(${colon[2]})`} instead` : '';
    context.addIssue({
      code: 'custom',
      message: `not a valid rule: ${errorMessage(error).replace(/\.$/, '')}${hint}`,
    });
  }
});

/** Keys whose value is a list where each element is checked on its own (a bad element is dropped). */
const elementwiseLists: Readonly<Record<string, z.ZodType>> = {
  'permissions.allow': ruleSchema,
  'permissions.deny': ruleSchema,
  'permissions.ask': ruleSchema,
  'permissions.additionalDirectories': z.string(),
  enabledMcpjsonServers: z.string(),
  allowedHttpHookUrls: z.string(),
  disabledMcpjsonServers: z.string(),
};

const hookHandlerSchema = (
  (topShape.hooks.unwrap() as z.ZodRecord).valueType as z.ZodArray<z.ZodObject<z.ZodRawShape>>
).element.shape.hooks as z.ZodArray<z.ZodType>;

/** Validates `key` with `schema`; returns the parsed value or records a warning and returns a miss. */
function check(
  schema: z.ZodType,
  value: unknown,
  key: string,
  file: string,
  warnings: SettingsWarning[],
): { ok: true; value: unknown } | { ok: false } {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  warnings.push({ file, key, reason: reasonOf(result.error, value) });
  return { ok: false };
}

function listOf(
  element: z.ZodType,
  value: unknown,
  key: string,
  file: string,
  warnings: SettingsWarning[],
): unknown[] | undefined {
  if (!Array.isArray(value)) {
    warnings.push({
      file,
      key,
      reason: `must be a list (found ${JSON.stringify(value)}); the entry was skipped and the rest of the file applies.`,
    });
    return undefined;
  }
  const kept: unknown[] = [];
  value.forEach((item, index) => {
    const result = check(element, item, `${key}[${index}]`, file, warnings);
    if (result.ok) kept.push(result.value);
  });
  return kept;
}

/** `hooks`: each event, matcher group and handler is checked on its own. */
function lenientHooks(value: unknown, file: string, warnings: SettingsWarning[]): unknown {
  if (!isRecord(value)) {
    warnings.push({ file, key: 'hooks', reason: 'must be an object of events; the hooks were skipped.' });
    return undefined;
  }
  const hooks: Record<string, unknown[]> = {};
  for (const [event, groups] of Object.entries(value)) {
    const kept: unknown[] = [];
    if (!Array.isArray(groups)) {
      warnings.push({
        file,
        key: `hooks.${event}`,
        reason:
          'must be a list of matcher groups ({ "matcher": ..., "hooks": [...] }); the event was skipped.',
      });
      continue;
    }
    groups.forEach((group, index) => {
      const key = `hooks.${event}[${index}]`;
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        warnings.push({
          file,
          key,
          reason: 'must be an object with a "hooks" list; the matcher group was skipped.',
        });
        return;
      }
      if (group.matcher !== undefined && typeof group.matcher !== 'string') {
        warnings.push({
          file,
          key: `${key}.matcher`,
          reason: 'must be a string; the matcher group was skipped.',
        });
        return;
      }
      const handlers: unknown[] = [];
      group.hooks.forEach((handler, handlerIndex) => {
        const handlerKey = `${key}.hooks[${handlerIndex}]`;
        const result = check(hookHandlerSchema.element as z.ZodType, handler, handlerKey, file, warnings);
        if (!result.ok) return;
        const parsed = result.value as Record<string, unknown>;
        if (parsed.type === 'command' && typeof parsed.command !== 'string') {
          warnings.push({
            file,
            key: `${handlerKey}.command`,
            reason: 'a command hook needs a "command" string; the hook was skipped.',
          });
          return;
        }
        handlers.push(parsed);
      });
      if (handlers.length > 0) kept.push({ ...group, hooks: handlers });
    });
    if (kept.length > 0) hooks[event] = kept;
  }
  return hooks;
}

/** `env`: values must be strings; numbers and booleans are written as text, as a shell would. */
function lenientEnv(value: unknown, file: string, warnings: SettingsWarning[]): unknown {
  if (!isRecord(value)) {
    warnings.push({ file, key: 'env', reason: 'must be an object of NAME: "value"; env was skipped.' });
    return undefined;
  }
  const env: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string') env[name] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') env[name] = String(item);
    else
      warnings.push({
        file,
        key: `env.${name}`,
        reason: `must be a string (found ${JSON.stringify(item)}); the variable was skipped.`,
      });
  }
  return env;
}

function lenientPermissions(value: unknown, file: string, warnings: SettingsWarning[]): unknown {
  if (!isRecord(value)) {
    warnings.push({
      file,
      key: 'permissions',
      reason: 'must be an object ({ "allow": [...], ... }); the permissions were skipped.',
    });
    return undefined;
  }
  const permissions: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const path = `permissions.${key}`;
    const element = elementwiseLists[path];
    if (element) {
      const list = listOf(element, item, path, file, warnings);
      if (list) permissions[key] = list;
      continue;
    }
    const schema = permissionsShape[key] as z.ZodType | undefined;
    if (!schema) {
      permissions[key] = item;
      continue;
    }
    const result = check(schema, item, path, file, warnings);
    if (result.ok) permissions[key] = result.value;
  }
  return permissions;
}

/**
 * Keeps every valid entry of a parsed settings object and warns about each invalid one. Unknown keys
 * are kept as written (other tools share the file; `doctor` reports the ones efferent does not use).
 */
export function lenientSettings(json: unknown, file: string): LenientSettings {
  const warnings: SettingsWarning[] = [];
  if (!isRecord(json)) {
    warnings.push({
      file,
      key: '(file)',
      reason: 'settings must be a JSON object ({ "permissions": { ... } }); fix the file to apply it.',
    });
    return { settings: undefined, warnings };
  }
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    let parsed: unknown;
    if (key === 'permissions') parsed = lenientPermissions(value, file, warnings);
    else if (key === 'hooks') parsed = lenientHooks(value, file, warnings);
    else if (key === 'env') parsed = lenientEnv(value, file, warnings);
    else if (elementwiseLists[key]) parsed = listOf(elementwiseLists[key], value, key, file, warnings);
    else {
      const schema = (topShape as Record<string, z.ZodType | undefined>)[key];
      if (!schema) parsed = value;
      else {
        const result = check(schema, value, key, file, warnings);
        parsed = result.ok ? result.value : undefined;
      }
    }
    if (parsed !== undefined) kept[key] = parsed;
  }
  // Whatever was kept must satisfy the strict schema; anything that still does not is a bug here.
  const final = settingsFileSchema.safeParse(kept);
  if (!final.success) {
    warnings.push({ file, key: '(file)', reason: `${reasonOf(final.error, kept)}` });
    return { settings: undefined, warnings };
  }
  return { settings: final.data, warnings };
}

/** Parses settings text leniently: text that is not JSON skips the whole file with one warning. */
export function parseSettingsLenient(
  text: string,
  file: string,
  options: { recoverTightening?: boolean } = {},
): LenientSettings {
  // A byte order mark is an encoding mark, not syntax (editors on Windows write one; Claude Code reads past it).
  const body = withoutByteOrderMark(text);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    const reason = errorMessage(error).replace(/\.$/, '');
    // Skipping the whole file would drop its deny rules. Read as JSON with comments and trailing
    // commas, the part that only tightens (deny and ask rules, stricter modes) still applies.
    const recovered = options.recoverTightening === false ? undefined : relaxedJson(body);
    if (recovered !== null && typeof recovered === 'object' && !Array.isArray(recovered)) {
      const lenient = lenientSettings(recovered, file);
      if (lenient.settings) {
        const view = untrustedProjectView(lenient.settings);
        return {
          settings: view.settings,
          warnings: [
            {
              file,
              key: '(syntax)',
              reason: `not valid JSON (${reason}); only its deny and ask rules and a stricter mode were applied${view.ignored.length > 0 ? ` (${view.ignored.join(', ')} ignored)` : ''}; fix the syntax to apply the file.`,
            },
            ...lenient.warnings,
          ],
        };
      }
    }
    return {
      settings: undefined,
      warnings: [
        { file, key: '(file)', reason: `not valid JSON (${reason}); fix the syntax to apply the file.` },
      ],
    };
  }
  return lenientSettings(json, file);
}
