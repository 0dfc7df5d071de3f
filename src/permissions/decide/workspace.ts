import type { GitInspector } from '../git-config/inspect-git.ts';
import {
  type CanonicalPath,
  canonicalizePath,
  fsRealpath,
  isInsideDirectory,
  isUnresolvable,
  type RealpathFn,
  type UnresolvablePath,
} from '../paths/canonical-path.ts';
import { fsLinkScan, type LinkScanFn } from '../paths/link-scan.ts';
import { insideClean, isCleanAbsolute } from '../../core/path-inside.ts';

/** The directories and filesystem a decision is made against. */
export interface Workspace {
  /** Where relative paths and `./x` rules start. */
  cwd: string;
  /** The primary working directory. */
  projectRoot: string;
  home: string;
  /** Further working directories. */
  additionalDirectories: readonly string[];
  /** How existing paths are resolved; a lexical stand-in makes decisions independent of the disk. */
  realpath: RealpathFn;
  /** Judges the repository configuration a git invocation would load (default: read from disk). */
  inspectGit?: GitInspector;
  /**
   * How the symbolic links under a directory are found, for commands that follow them while
   * recursing. Absent when decisions are made without a disk (a lexical realpath): no links exist.
   */
  scanLinks?: LinkScanFn;
}

/** A workspace on the real filesystem (its links scanned too, unless another realpath is given). */
export function createWorkspace(
  init: Omit<Workspace, 'realpath' | 'scanLinks'> & { realpath?: RealpathFn; scanLinks?: LinkScanFn },
): Workspace {
  const realpath = init.realpath ?? fsRealpath;
  const scanLinks = init.scanLinks ?? (realpath === fsRealpath ? fsLinkScan : undefined);
  return { ...init, realpath, ...(scanLinks ? { scanLinks } : {}) };
}

/** Every spelling of every working directory (as written and resolved). */
export function workingDirectories(workspace: Workspace): string[] {
  const cached = resolvedDirectories.get(workspace);
  if (cached) return cached;
  const directories = new Set<string>();
  for (const directory of [workspace.projectRoot, ...workspace.additionalDirectories]) {
    const canonical = canonicalizePath(
      directory,
      { cwd: workspace.cwd, home: workspace.home },
      workspace.realpath,
    );
    if (isUnresolvable(canonical)) continue;
    directories.add(canonical.lexical);
    directories.add(canonical.physical);
  }
  const list = [...directories];
  resolvedDirectories.set(workspace, list);
  return list;
}

// One decision checks containment many times; resolve the working directories once per workspace.
const resolvedDirectories = new WeakMap<Workspace, string[]>();

/** Resolves a path against the workspace. */
export function resolveInWorkspace(
  path: string,
  workspace: Workspace,
  cwd = workspace.cwd,
  realpath: RealpathFn = workspace.realpath,
): CanonicalPath | UnresolvablePath {
  return canonicalizePath(path, { cwd, home: workspace.home }, realpath);
}

/** Inside the working set only when both the link path and its target are. */
export function isInWorkspace(path: CanonicalPath, workspace: Workspace): boolean {
  const directories = workingDirectories(workspace);
  return insideAny(path.lexical, directories) && insideAny(path.physical, directories);
}

function insideAny(candidate: string, directories: readonly string[]): boolean {
  if (isCleanAbsolute(candidate) && allClean(directories)) {
    for (const directory of directories) if (insideClean(candidate, directory)) return true;
    return false;
  }
  for (const directory of directories) if (isInsideDirectory(candidate, directory)) return true;
  return false;
}

/** Whether every working directory is a clean absolute path (asked once per list). */
function allClean(directories: readonly string[]): boolean {
  let clean = cleanLists.get(directories);
  if (clean === undefined) {
    clean = directories.every(isCleanAbsolute);
    cleanLists.set(directories, clean);
  }
  return clean;
}

const cleanLists = new WeakMap<readonly string[], boolean>();
