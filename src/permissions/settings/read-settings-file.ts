import type { z } from 'zod';
import { EfferentError, errorMessage, readOwnFile } from '../../core/index.ts';
import { type LenientSettings, parseSettingsLenient } from './lenient-settings.ts';
import { type SettingsFile, settingsFileSchema } from './settings-schema.ts';

/** Formats a zod issue path as `permissions.allow[2]`. */
function keyPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text === '' ? '(top level)' : text;
}

/** Parses settings JSON, naming the file and the key path of the first problem. */
export function parseSettingsText(text: string, label: string): SettingsFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new EfferentError(
      'settings_invalid',
      `Settings ${label} is not valid JSON: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  const result = settingsFileSchema.safeParse(json);
  if (!result.success) throw settingsError(label, result.error);
  return result.data;
}

function settingsError(label: string, error: z.ZodError): EfferentError {
  const issue = error.issues[0];
  const where = issue ? keyPath(issue.path) : '(top level)';
  return new EfferentError(
    'settings_invalid',
    `Settings ${label}: key ${where} is invalid: ${issue?.message ?? 'unknown problem'}.`,
    {
      cause: error,
    },
  );
}

/** The largest settings file efferent reads (real ones are a few kilobytes). */
export const maxSettingsFileBytes = 4 * 1024 * 1024;

/**
 * Reads a settings file's text, bounded and never through a link out of `within` (the project, for
 * its own files): a repository chooses what its settings names are.
 */
async function settingsText(
  path: string,
  signal: AbortSignal | undefined,
  within: string | undefined,
): Promise<{ text: string } | { problem: string } | undefined> {
  signal?.throwIfAborted();
  const read = await readOwnFile(path, {
    maxBytes: maxSettingsFileBytes,
    ...(within !== undefined ? { within } : {}),
  });
  if (read.kind === 'missing') return undefined;
  if (read.kind === 'refused') return { problem: read.reason };
  return { text: read.text };
}

/** Reads a settings file; a missing file is `undefined`, anything else unreadable or invalid throws. */
export async function readSettingsFile(
  path: string,
  signal?: AbortSignal,
  within?: string,
): Promise<SettingsFile | undefined> {
  const read = await settingsText(path, signal, within);
  if (read === undefined) return undefined;
  if ('problem' in read)
    throw new EfferentError('settings_invalid', `Settings file ${path} cannot be used: ${read.problem}.`);
  return parseSettingsText(read.text, `file ${path}`);
}

/**
 * Reads a settings file the way Claude Code does: a missing file is `undefined`; an unreadable file or
 * text that is not a JSON object is skipped with one warning; a bad entry is skipped with a warning
 * naming its key and the rest applies.
 */
export async function readSettingsFileLenient(
  path: string,
  signal?: AbortSignal,
  within?: string,
  options: { recoverTightening?: boolean } = {},
): Promise<LenientSettings | undefined> {
  let read: Awaited<ReturnType<typeof settingsText>>;
  try {
    read = await settingsText(path, signal, within);
  } catch (error) {
    if ((error as { name?: unknown }).name === 'AbortError') throw error;
    read = { problem: errorMessage(error).replace(/\.$/, '') };
  }
  if (read === undefined) return undefined;
  if ('problem' in read)
    return {
      settings: undefined,
      warnings: [
        { file: path, key: '(file)', reason: `cannot be read (${read.problem}); the file was skipped.` },
      ],
    };
  return parseSettingsLenient(read.text, path, options);
}
