import { stat } from 'node:fs/promises';
import { EfferentError, ErrorCodes, type ToolUseContext } from '../../core/index.ts';
import { blockedPathReason } from './device-paths.ts';
import { resolveToolPath } from './paths.ts';
import { didYouMean } from './suggestions.ts';

/** Where a search runs: an existing directory, or one file (Grep allows files). */
export interface SearchTarget {
  absolutePath: string;
  isDirectory: boolean;
}

/** Resolves a search tool's `path` (default: the cwd) and checks that it exists. */
export async function resolveSearchTarget(
  path: string | undefined,
  context: Pick<ToolUseContext, 'run'>,
  allowFile: boolean,
): Promise<SearchTarget> {
  const absolutePath =
    path === undefined || path.trim() === '' ? context.run.cwd : resolveToolPath(path, context);
  const blocked = blockedPathReason(absolutePath);
  if (blocked) throw new EfferentError(ErrorCodes.pathBlocked, blocked);
  try {
    const stats = await stat(absolutePath);
    if (stats.isDirectory()) return { absolutePath, isDirectory: true };
    if (allowFile && stats.isFile()) return { absolutePath, isDirectory: false };
    throw new EfferentError(
      ErrorCodes.validationFailed,
      `${absolutePath} is not a directory. Pass a directory as path${allowFile ? ' (or a regular file)' : ''}.`,
    );
  } catch (error) {
    if (EfferentError.isInstance(error)) throw error;
    const hint = await didYouMean(absolutePath);
    throw new EfferentError(
      ErrorCodes.fileNotFound,
      `Path does not exist: ${absolutePath}.${hint} The current working directory is ${context.run.cwd}.`,
      { cause: error },
    );
  }
}
