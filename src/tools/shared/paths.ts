import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import type { ToolUseContext } from '../../core/index.ts';
import { isCleanAbsolute } from '../../core/path-inside.ts';

/** The home directory tools expand `~` to: the run's HOME when set, else the OS's. */
export function homeDirectory(context: Pick<ToolUseContext, 'run'>): string {
  const home = context.run.env['HOME'];
  return home && isAbsolute(home) ? home : homedir();
}

/**
 * Turns a path the model wrote into an absolute, normalised path: `~` and `~/x` expand to the home
 * directory, relative paths resolve against `cwd`. Symlinks are not followed (see {@link canonicalPath}).
 */
export function expandPath(path: string, cwd: string, home: string = homedir()): string {
  const trimmed = path.trim();
  // Most paths a model sends are absolute and already normal: nothing for resolve() to do.
  if (isCleanAbsolute(trimmed)) return trimmed;
  if (trimmed === '~') return normalize(home);
  if (trimmed.startsWith('~/') || trimmed.startsWith(`~${sep}`)) return resolve(home, trimmed.slice(2));
  return resolve(cwd, trimmed);
}

/** {@link expandPath} with the context's cwd and home. */
export function resolveToolPath(path: string, context: Pick<ToolUseContext, 'run'>): string {
  return expandPath(path, context.run.cwd, homeDirectory(context));
}

/**
 * The real location of a path, symlinks resolved. Works for paths that do not exist yet: the nearest
 * existing ancestor is resolved and the missing tail appended, so `new/dir/file` inside a symlinked
 * project still canonicalises into the project.
 */
export function canonicalPath(absolutePath: string): string {
  const missing: string[] = [];
  let current = normalize(absolutePath);
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return normalize(absolutePath);
      missing.push(basename(current));
      current = parent;
    }
  }
}

/**
 * True when `child` is `parent` or lies below it, compared by whole path segments: `/a/bc` is not
 * inside `/a/b`. Both paths must be absolute; neither is canonicalised here.
 */
export function isPathInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  if (rel === '') return true;
  if (isAbsolute(rel)) return false;
  return rel !== '..' && !rel.startsWith(`..${sep}`);
}

/** The directories tools may use without leaving the workspace: the project root and added ones. */
export function workingDirectories(context: Pick<ToolUseContext, 'run'>): string[] {
  const { projectRoot, additionalDirectories } = context.run;
  return [projectRoot, ...additionalDirectories];
}

/**
 * True when an absolute path lies inside one of the working directories, after resolving symlinks
 * on both sides, so a link inside the project that points outside it does not count as inside.
 */
export function isInWorkingDirectories(absolutePath: string, context: Pick<ToolUseContext, 'run'>): boolean {
  const target = canonicalPath(absolutePath);
  return workingDirectories(context).some((directory) =>
    isPathInside(target, canonicalPath(resolve(context.run.cwd, directory))),
  );
}

/** A path for messages: relative to cwd when inside it, absolute otherwise. */
export function displayPath(absolutePath: string, cwd: string): string {
  return isPathInside(absolutePath, cwd) && absolutePath !== cwd ? relative(cwd, absolutePath) : absolutePath;
}
