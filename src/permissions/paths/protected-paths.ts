import { dirname, posix } from 'node:path';
import { isInsideDirectory } from './canonical-path.ts';

import { protectedEntryReason } from '../../core/protected-paths.ts';

/**
 * Paths whose modification can run code later (git hooks, shell start-up files, package-manager
 * and editor configuration) or change efferent's own configuration. Writes to them are never
 * pre-approved by an allow rule or acceptEdits. The lists live in core, shared with the sandbox.
 */

export { protectedDirectoryNames, protectedFileNames } from '../../core/protected-paths.ts';

/** Why a path is protected, or undefined when it is not. */
export function protectedPathReason(path: string): string | undefined {
  return protectedEntryReason(path);
}

/** Directories around a removal that must never be deleted wholesale. */
export interface CriticalPathContext {
  cwd: string;
  home: string;
  projectRoot: string;
  additionalDirectories: readonly string[];
}

/**
 * Whether `rm`/`rmdir` of this absolute path would destroy something critical: `/`, a direct child
 * of `/`, the home directory, the cwd, the project root or one of their parents. For glob targets
 * the directory the glob expands in is judged, and additional directories count too.
 */
export function isCriticalRemovalPath(path: string, context: CriticalPathContext, isGlob: boolean): boolean {
  const target = isGlob ? dirname(path) : path;
  const normalised = posix.normalize(target).replace(/(.)\/+$/, '$1');
  if (normalised === '/' || posix.dirname(normalised) === '/') return true;
  const guarded = [
    context.home,
    context.cwd,
    context.projectRoot,
    ...(isGlob ? context.additionalDirectories : []),
  ];
  return guarded.some((directory) => isInsideDirectory(directory, normalised));
}
