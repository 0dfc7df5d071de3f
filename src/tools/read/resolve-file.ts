import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { EfferentError, ErrorCodes } from '../../core/index.ts';
import { blockedPathReason, specialFileReason } from '../shared/device-paths.ts';
import { didYouMean } from '../shared/suggestions.ts';

const narrowNoBreakSpace = '\u202f';

/**
 * The other spelling of a macOS screenshot name: macOS writes "Screenshot … 10.03.12 PM.png" with a
 * narrow no-break space (U+202F) before AM/PM, which people (and models) retype as a normal space.
 */
export function alternateScreenshotPath(path: string): string | undefined {
  const name = basename(path);
  const swapped =
    name.includes(`${narrowNoBreakSpace}AM`) || name.includes(`${narrowNoBreakSpace}PM`)
      ? name.replace(/\u202f(AM|PM)/g, ' $1')
      : name.replace(/ (AM|PM)(?=\.\w+$)/, `${narrowNoBreakSpace}$1`);
  return swapped === name ? undefined : join(dirname(path), swapped);
}

/** An existing regular file Read may open, under the path it really has. */
export interface ResolvedFile {
  path: string;
  stats: Stats;
}

function statError(error: unknown, path: string): EfferentError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') {
    return new EfferentError(
      ErrorCodes.toolFailed,
      `Permission denied reading ${path}. Check the file's permissions (ls -l) or ask the user for access.`,
      { cause: error },
    );
  }
  if (code === 'ENOTDIR') {
    return new EfferentError(
      ErrorCodes.fileNotFound,
      `${path} does not exist: a parent of it is a file, not a directory.`,
      { cause: error },
    );
  }
  if (code === 'ELOOP' || code === 'ENAMETOOLONG') {
    return new EfferentError(ErrorCodes.toolFailed, `${path} cannot be opened (${code}).`, { cause: error });
  }
  return code === 'ENOENT'
    ? undefined
    : new EfferentError(ErrorCodes.toolFailed, `Cannot read ${path}: ${(error as Error).message}`, {
        cause: error,
      });
}

/**
 * Finds the file to read: refuses device and process paths, tries the other screenshot spelling for a
 * missing file, rejects directories and special files, and explains a missing file with similar names.
 */
export async function resolveReadableFile(absolutePath: string, cwd: string): Promise<ResolvedFile> {
  const candidates = [absolutePath];
  const alternate = alternateScreenshotPath(absolutePath);
  if (alternate) candidates.push(alternate);
  for (const candidate of candidates) {
    const blocked = blockedPathReason(candidate);
    if (blocked) throw new EfferentError(ErrorCodes.pathBlocked, blocked);
    let stats: Stats;
    try {
      stats = await stat(candidate);
    } catch (error) {
      const failure = statError(error, candidate);
      if (failure) throw failure;
      continue;
    }
    if (stats.isDirectory()) {
      throw new EfferentError(
        ErrorCodes.validationFailed,
        `${candidate} is a directory, not a file. List it with Bash (ls ${candidate}) or find files in it with Glob.`,
      );
    }
    // A link to a process file looks like an ordinary empty file to stat, so check where it leads.
    const real = await realpath(candidate).catch(() => candidate);
    const blockedTarget = real === candidate ? undefined : blockedPathReason(real);
    if (blockedTarget) throw new EfferentError(ErrorCodes.pathBlocked, blockedTarget);
    const special = specialFileReason(candidate, stats);
    if (special) throw new EfferentError(ErrorCodes.pathBlocked, special);
    return { path: candidate, stats };
  }
  const hint = await didYouMean(absolutePath);
  throw new EfferentError(
    ErrorCodes.fileNotFound,
    `File does not exist: ${absolutePath}.${hint} The current working directory is ${cwd}. Use Glob to find the file if you are unsure of its path.`,
  );
}
