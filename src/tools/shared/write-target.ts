import { EfferentError, ErrorCodes, type ToolUseContext } from '../../core/index.ts';
import { canonicalPath, isPathInside, workingDirectories } from './paths.ts';

/**
 * Checks, right before writing, that a path the model named inside the working directories still
 * lands inside them once symlinks are followed. Permission was granted for the path as it resolved
 * then; a link planted or swapped in since (by a background command, another process) would
 * otherwise carry the write anywhere. Paths named outside the working directories were judged as
 * such by the permission layer and pass unchanged.
 */
export function assertWriteStaysInside(absolutePath: string, context: Pick<ToolUseContext, 'run'>): void {
  const directories = workingDirectories(context).map((directory) => ({
    named: directory,
    real: canonicalPath(directory),
  }));
  const namedInside = directories.some(
    ({ named, real }) => isPathInside(absolutePath, named) || isPathInside(absolutePath, real),
  );
  if (!namedInside) return;
  const target = canonicalPath(absolutePath);
  if (directories.some(({ real }) => isPathInside(target, real))) return;
  throw new EfferentError(
    ErrorCodes.pathOutsideWorkspace,
    `${absolutePath} leads through a symbolic link to ${target}, outside the working directories. Nothing was written. If that file is the one to change, pass ${target} as the path (the user will be asked).`,
  );
}
