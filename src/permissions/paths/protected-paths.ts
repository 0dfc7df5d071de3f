import { basename, dirname, posix } from 'node:path';
import {
  protectedDirectoryNames,
  protectedFileNames,
  protectedFilePatterns,
} from '../../core/protected-paths.ts';
import { isInsideDirectory } from './canonical-path.ts';

/**
 * Paths whose modification can run code later (git hooks, shell start-up files, package-manager
 * and editor configuration) or change efferent's own configuration. Writes to them are never
 * pre-approved by an allow rule or acceptEdits.
 */

export { protectedDirectoryNames, protectedFileNames } from '../../core/protected-paths.ts';

/** Subdirectories of protected directories that agents may write (worktrees they create). */
const unprotectedSubdirectories = [
  ['.claude', 'worktrees'],
  ['.efferent', 'worktrees'],
] as const;

/** Why a path is protected, or undefined when it is not. */
export function protectedPathReason(path: string): string | undefined {
  const segments = path.split('/').filter((segment) => segment !== '');
  for (let index = 0; index < segments.length; index++) {
    const segment = (segments[index] ?? '').toLowerCase();
    if (segment === 'git' && segments[index - 1]?.toLowerCase() === '.config')
      return 'it is git configuration';
    if (segment === 'fish' && segments[index - 1]?.toLowerCase() === '.config')
      return 'it is shell start-up configuration';
    if (!protectedDirectoryNames.includes(segment)) continue;
    const next = segments[index + 1]?.toLowerCase();
    if (unprotectedSubdirectories.some(([dir, sub]) => dir === segment && sub === next)) continue;
    return `it is inside ${segments[index]}/`;
  }
  const name = basename(path).toLowerCase();
  if (protectedFileNames.includes(name) || protectedFilePatterns.some((pattern) => pattern.test(name))) {
    return `${basename(path)} can run code or change configuration`;
  }
  return undefined;
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
