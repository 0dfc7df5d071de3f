import { accessSync, constants, type Stats } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EfferentError, ErrorCodes, openCheckedForRead, type ToolUseContext } from '../../core/index.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { blockedPathReason, specialFileReason } from './device-paths.ts';
import { recordFullView } from './read-state.ts';
import { assertWriteStaysInside } from './write-target.ts';
import { decodeText, defaultTextFormat, encodeText, type TextFormat } from './text-file.ts';

/** Files above this are refused by the editing tools (1 GiB). */
export const maxEditableBytes = 1024 ** 3;

/** A file as the writing tools see it before changing it. */
export type LoadedFile =
  | { exists: true; text: string; format: TextFormat; mtimeMs: number; size: number }
  | { exists: false };

/** Why a path cannot be written at all (device, directory, special file), or undefined. */
export function unwritableReason(path: string, stats: Stats | undefined): string | undefined {
  const blocked = blockedPathReason(path);
  if (blocked) return blocked;
  if (!stats) return undefined;
  if (stats.isDirectory()) return `${path} is a directory; give the path of a file inside it.`;
  const special = specialFileReason(path, stats);
  if (special) return special;
  // The atomic rename would replace a read-only file as long as its directory is writable; a
  // read-only file is someone's way of saying "do not change this", so it is honoured.
  if ((stats.mode & 0o222) === 0 || !isWritable(path)) {
    return `${path} is read-only (mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}), so it was not changed. Ask the user whether it should be edited; if so, make it writable first (chmod u+w).`;
  }
  return undefined;
}

function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads a file for editing: missing files are `{exists:false}`; devices, directories, special files and
 * files over 1 GiB throw with a message for the model.
 */
export async function loadFileForChange(
  path: string,
  signal?: AbortSignal,
  checked?: string,
): Promise<LoadedFile> {
  let stats: Stats | undefined;
  try {
    stats = await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      throw new EfferentError(ErrorCodes.toolFailed, `Cannot access ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const reason = unwritableReason(path, stats);
  if (reason) throw new EfferentError(ErrorCodes.pathBlocked, reason);
  if (!stats) return { exists: false };
  if (stats.size > maxEditableBytes) {
    throw new EfferentError(
      ErrorCodes.fileTooLarge,
      `${path} is ${stats.size.toLocaleString('en-US')} bytes, over the 1 GiB limit for editing. Change it with a streaming tool in Bash (sed -i, a script) instead.`,
    );
  }
  let bytes: Buffer;
  try {
    // The content comes from the file the permission check judged, or the change is refused.
    const file = openCheckedForRead(path, checked);
    try {
      bytes = signal ? await readFile(file.source, { signal }) : await readFile(file.source);
    } finally {
      file.close();
    }
  } catch (error) {
    if (EfferentError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === 'EACCES' || code === 'EPERM'
        ? ' Permission denied: check its permissions or ask the user.'
        : '';
    throw new EfferentError(
      ErrorCodes.toolFailed,
      `Cannot read ${path}: ${(error as Error).message}.${hint}`,
      { cause: error },
    );
  }
  try {
    return { exists: true, ...decodeText(bytes), mtimeMs: stats.mtimeMs, size: stats.size };
  } catch (error) {
    // JavaScript strings stop at about 512 M characters, below the 1 GiB edit limit.
    throw new EfferentError(
      ErrorCodes.fileTooLarge,
      `${path} is too large to edit in memory (${stats.size.toLocaleString('en-US')} bytes). Change it with a streaming tool in Bash (sed -i, a script) instead.`,
      { cause: error },
    );
  }
}

/**
 * Writes new text atomically in the file's own format (encoding, BOM, CRLF), creating parent
 * directories, then records the result as what the model now knows of the file.
 */
export async function commitText(
  path: string,
  text: string,
  format: TextFormat | undefined,
  context: Pick<ToolUseContext, 'run'>,
  checked?: string,
): Promise<void> {
  let bytes: Buffer;
  try {
    bytes = encodeText(text, format ?? defaultTextFormat);
  } catch (error) {
    throw new EfferentError(
      ErrorCodes.validationFailed,
      `${path}: ${(error as Error).message} Nothing was written.`,
      { cause: error },
    );
  }
  assertWriteStaysInside(path, context);
  try {
    await mkdir(dirname(checked ?? path), { recursive: true });
    await writeFileAtomic(path, bytes, {
      signal: context.run.abortController.signal,
      ...(checked === undefined ? {} : { checked }),
    });
  } catch (error) {
    if (context.run.abortController.signal.aborted || EfferentError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? ' The file or its directory is not writable; check permissions or ask the user.'
        : code === 'ENOSPC'
          ? ' The disk is full.'
          : '';
    throw new EfferentError(
      ErrorCodes.toolFailed,
      `Could not write ${path}: ${(error as Error).message}.${hint} The file was not changed.`,
      {
        cause: error,
      },
    );
  }
  const stats = await stat(path);
  recordFullView(context, path, text, stats.mtimeMs);
}

/** The 1-based line on which character `index` of `text` sits. */
export function lineNumberAt(text: string, index: number): number {
  let line = 1;
  for (
    let position = text.indexOf('\n');
    position !== -1 && position < index;
    position = text.indexOf('\n', position + 1)
  ) {
    line++;
  }
  return line;
}
