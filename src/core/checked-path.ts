import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { RunState } from './context.ts';
import { EfferentError, ErrorCodes } from './errors.ts';
import { procFdAvailable as procFd } from './session-files.ts';

/**
 * The physical path a permission decision judged for a file tool's call, handed to the tool so that
 * it opens exactly that file. Between the decision and the open (hooks, a person reading the prompt,
 * a background command swapping a directory for a link) the name may come to lead elsewhere; a
 * tool that checks the file it opened against this path reads or writes the file that was decided,
 * or nothing.
 */
const checkedPaths = new WeakMap<RunState, Map<string, string>>();

/** Records (or, with undefined, forgets) the physical path decided for one call. */
export function recordCheckedPath(run: RunState, toolUseId: string, physical: string | undefined): void {
  let byCall = checkedPaths.get(run);
  if (physical === undefined) {
    byCall?.delete(toolUseId);
    return;
  }
  if (!byCall) {
    byCall = new Map();
    checkedPaths.set(run, byCall);
  }
  byCall.set(toolUseId, physical);
}

/** The physical path decided for one call, removed from the record; undefined when none was. */
export function takeCheckedPath(run: RunState, toolUseId: string | undefined): string | undefined {
  if (toolUseId === undefined) return undefined;
  const byCall = checkedPaths.get(run);
  const physical = byCall?.get(toolUseId);
  byCall?.delete(toolUseId);
  return physical;
}

/** Where an open descriptor really leads, or undefined where the system cannot say. */
function descriptorPath(fd: number): string | undefined {
  if (!procFd) return undefined;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function changedError(shown: string, checked: string, now: string | undefined): EfferentError {
  return new EfferentError(
    ErrorCodes.pathBlocked,
    `${shown} changed after its permission check: it was ${checked}${now ? ` and now leads to ${now}` : ''}. Nothing was read or written. A link in the path may have been swapped; look at it (ls -la) before trying again.`,
  );
}

/**
 * A file opened for reading that is the checked one: `source` reads its bytes (through
 * `/proc/self/fd`, so no later change of the name can redirect it); `close` releases it.
 */
export interface CheckedFile {
  source: string;
  close(): void;
}

/**
 * Opens `path` for reading and, when `checked` is given, makes sure the opened file is the one at
 * that physical path. Without `checked` (no path decision was made) or without /proc, `source` is
 * `path` itself.
 */
export function openCheckedForRead(path: string, checked: string | undefined): CheckedFile {
  if (checked === undefined || !procFd) return { source: path, close: () => {} };
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const now = descriptorPath(fd);
  if (now !== checked || !fstatSync(fd).isFile()) {
    closeSync(fd);
    throw changedError(path, checked, now === checked ? `${now}, no longer a regular file` : now);
  }
  return { source: `/proc/self/fd/${fd}`, close: () => closeSync(fd) };
}

/**
 * The directory of a checked path, opened for writing the file in it: `target` names the file
 * through `/proc/self/fd` (no later swap of a component of the path can redirect the write), and
 * `directory` is the directory's real name (for bookkeeping such as sweeping temp files).
 */
export interface CheckedDirectory {
  target: string;
  directory: string;
  close(): void;
}

/**
 * Opens the directory of the checked physical path `checked` and makes sure it still is that
 * directory (no component became a link since the decision); the file itself, when it exists, must
 * not be a link either. Undefined where there is no /proc: the caller writes by name as before.
 */
export function openCheckedDirectory(shown: string, checked: string): CheckedDirectory | undefined {
  if (!procFd) return undefined;
  const directory = dirname(checked);
  const fd = openSync(directory, constants.O_RDONLY | constants.O_DIRECTORY);
  const now = descriptorPath(fd);
  if (now !== directory) {
    closeSync(fd);
    throw changedError(shown, checked, now === undefined ? undefined : `${now}/${basename(checked)}`);
  }
  const target = `/proc/self/fd/${fd}/${basename(checked)}`;
  let isLink = false;
  try {
    isLink = lstatSync(target).isSymbolicLink();
  } catch {
    // Missing: it is created in the checked directory.
  }
  if (isLink) {
    closeSync(fd);
    throw changedError(shown, checked, `a link at ${checked}`);
  }
  return { target, directory, close: () => closeSync(fd) };
}
