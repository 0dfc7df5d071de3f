import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { EfferentError, errorMessage } from '../../core/index.ts';
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

/** Reads a settings file; a missing file is `undefined`, anything else unreadable or invalid throws. */
export async function readSettingsFile(
  path: string,
  signal?: AbortSignal,
): Promise<SettingsFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, signal ? { encoding: 'utf8', signal } : { encoding: 'utf8' });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if ((error as { name?: unknown }).name === 'AbortError') throw error;
    throw new EfferentError(
      'settings_invalid',
      `Settings file ${path} cannot be read: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  return parseSettingsText(text, `file ${path}`);
}

/**
 * Reads a settings file the way Claude Code does: a missing file is `undefined`; an unreadable file or
 * text that is not a JSON object is skipped with one warning; a bad entry is skipped with a warning
 * naming its key and the rest applies.
 */
export async function readSettingsFileLenient(
  path: string,
  signal?: AbortSignal,
): Promise<LenientSettings | undefined> {
  let text: string;
  try {
    text = await readFile(path, signal ? { encoding: 'utf8', signal } : { encoding: 'utf8' });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if ((error as { name?: unknown }).name === 'AbortError') throw error;
    return {
      settings: undefined,
      warnings: [
        {
          file: path,
          key: '(file)',
          reason: `cannot be read (${errorMessage(error).replace(/\.$/, '')}); check its permissions.`,
        },
      ],
    };
  }
  return parseSettingsLenient(text, path);
}
