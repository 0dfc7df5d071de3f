import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, join, posix } from 'node:path';
import { isCleanAbsolute } from '../../core/path-inside.ts';

/**
 * Canonical paths for permission checks: a path is judged both as written (the link) and as the
 * filesystem resolves it (the target), and containment is decided on path segments, never on
 * string prefixes (`/srv/proj2` is not inside `/srv/proj`).
 */

/** Resolves an existing path to its real location, or returns undefined when it does not exist. */
export type RealpathFn = (path: string) => string | undefined;

/** The kernel's limit on symbolic links followed while resolving one path (Linux: 40). */
const maxLinkHops = 40;

/**
 * The real filesystem, for production use. A dangling symlink still resolves to where it points
 * (its target may be created later, and a deny rule on the target must already apply); its target
 * is resolved component by component as the kernel would, so `..` in it applies physically too.
 */
export const fsRealpath: RealpathFn = (path) => {
  const memo = decisionMemo;
  if (!memo) return fsRealpathWithin(path, 0);
  if (memo.realpaths.has(path)) return memo.realpaths.get(path);
  const real = fsRealpathWithin(path, 0);
  memo.realpaths.set(path, real);
  return real;
};

/**
 * What the real filesystem answered during the decision under way: one decision resolves the same
 * directories many times (every argument walks the working directory's components again). Kept only
 * while {@link withPathMemo}'s callback runs, which is synchronous, so no answer outlives the
 * decision that asked: the next decision asks the disk again.
 */
interface PathMemo {
  realpaths: Map<string, string | undefined>;
  directories: Map<string, string | undefined>;
  /** What lstat(2) said of physical paths looked at during the decision. */
  leaves: Map<string, LeafKind>;
}

/**
 * What lstat(2) says a path is: enough to know whether a directory walk could start there, and
 * whether a regular file has other names (`shared`: more than one hard link).
 */
export type LeafKind = 'missing' | 'link' | 'directory' | 'shared' | 'other';

/**
 * What lstat(2) said of `path` earlier in the decision under way, if it was asked (a physical path
 * whose directory is already resolved); undefined outside a decision or when it was not asked.
 */
export function knownLeafKind(path: string): LeafKind | undefined {
  return decisionMemo?.leaves.get(path);
}

let decisionMemo: PathMemo | undefined;

/**
 * Runs one synchronous decision with {@link fsRealpath}'s answers remembered until it returns (the
 * same path asked twice within it is resolved once). Nested calls share the outer memo.
 */
export function withPathMemo<T>(decide: () => T): T {
  if (decisionMemo) return decide();
  decisionMemo = { realpaths: new Map(), directories: new Map(), leaves: new Map() };
  try {
    return decide();
  } finally {
    decisionMemo = undefined;
  }
}

function fsRealpathWithin(path: string, hops: number): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    let target: string;
    try {
      if (!lstatSync(path).isSymbolicLink()) return undefined;
      target = readlinkSync(path);
    } catch {
      return undefined;
    }
    if (hops >= maxLinkHops) return path;
    const next = isAbsolute(target) ? target : `${posix.dirname(path)}/${target}`;
    return physicalPath(next, (prefix) => fsRealpathWithin(prefix, hops + 1));
  }
}

/** A filesystem where nothing exists: every path is reasoned about lexically. */
export const lexicalRealpath: RealpathFn = () => undefined;

/** The two spellings of one path that rules are matched against. */
export interface CanonicalPath {
  /** Absolute, lexically normalised (`..` folded as written): the link path. */
  lexical: string;
  /** Resolved through every existing symlink, `..` applied physically: the target path. */
  physical: string;
}

/** Why a path cannot be reasoned about safely; such paths always prompt. */
export interface UnresolvablePath {
  unresolvable: string;
  /**
   * Set when the path exists in two places at once (`..` after a symbolic link): unlike a path the
   * engine cannot spell, it must be asked about even when no deny rule could match it.
   */
  ambiguous?: true;
}

/** What a path resolves against. */
export interface PathBase {
  cwd: string;
  home: string;
}

export { isInsideDirectory } from '../../core/index.ts';

/**
 * Resolves an absolute path the way the kernel does: components left to right, each existing prefix
 * replaced by where it really is (symlinks followed), and `..` taken from the physical directory
 * reached so far, never from the text (`link/..` is the parent of the link's target). The path must
 * not have been normalised first: folding `..` before resolving links is exactly what the kernel
 * does not do. Once a component does not exist the rest is appended as written.
 */
export function physicalPath(absolute: string, realpath: RealpathFn): string {
  if (realpath === fsRealpath) {
    const onDisk = physicalOnDisk(absolute);
    if (onDisk !== undefined) return onDisk;
  }
  const segments = absolute.split('/').filter((segment) => segment !== '');
  let current = '/';
  let exists = true;
  for (const segment of segments) {
    if (segment === '.') continue;
    if (segment === '..') {
      current = posix.dirname(current);
      continue;
    }
    const next = current === '/' ? `/${segment}` : `${current}/${segment}`;
    if (exists) {
      const real = realpath(next);
      if (real === undefined) {
        exists = false;
        current = next;
      } else current = real;
    } else current = next;
  }
  return current;
}

/**
 * {@link physicalPath} on the real filesystem for a path without `..` whose directory exists: the
 * walk would replace that directory by its realpath(3) (the same components in the same order) and
 * then resolve the last name, which takes one lstat when the name is missing or not a link. So: one
 * realpath of the directory (remembered for the decision, and shared by every name in it) and one
 * lstat of the name. Undefined (the walk decides) for `..`, a trailing `/`, a missing directory, or
 * any error.
 */
function physicalOnDisk(absolute: string): string | undefined {
  if (!absolute.startsWith('/') || absolute.endsWith('/') || absolute.includes('/..')) return undefined;
  const cut = absolute.lastIndexOf('/');
  const name = absolute.slice(cut + 1);
  if (name === '.') return undefined;
  const directory = realDirectory(cut === 0 ? '/' : absolute.slice(0, cut));
  if (directory === undefined) return undefined;
  const leaf = directory === '/' ? `/${name}` : `${directory}/${name}`;
  let kind: LeafKind;
  try {
    const stats = lstatSync(leaf, { throwIfNoEntry: false });
    kind =
      stats === undefined
        ? 'missing'
        : stats.isSymbolicLink()
          ? 'link'
          : stats.isDirectory()
            ? 'directory'
            : stats.isFile() && stats.nlink > 1
              ? 'shared'
              : 'other';
  } catch {
    return undefined;
  }
  decisionMemo?.leaves.set(leaf, kind);
  return kind === 'link' ? (fsRealpath(leaf) ?? leaf) : leaf;
}

/** realpath(3) of an existing path, remembered for the decision under way; undefined when it fails. */
function realDirectory(path: string): string | undefined {
  const memo = decisionMemo;
  if (memo?.directories.has(path)) return memo.directories.get(path);
  let real: string | undefined;
  try {
    real = realpathSync.native(path);
  } catch {
    real = undefined;
  }
  memo?.directories.set(path, real);
  return real;
}

/** Joins a relative path to a directory without folding `..`, so it can still be resolved physically. */
export function joinUnfolded(directory: string, path: string): string {
  if (isAbsolute(path)) return path;
  return path === '' ? directory : `${directory.replace(/\/+$/, '')}/${path}`;
}

/**
 * The reason a path names different files depending on who resolves it, or undefined. When `..`
 * follows a symbolic link, the kernel (and `cd -P`) applies it to the link's target, while code
 * that normalises the text first (`path.resolve`, bash's logical `cd`) applies it to the link's
 * parent. Such a path cannot be judged by one answer, so it is asked about.
 */
export const ambiguousPathReason =
  'the path uses `..` after a symbolic link, so it names different files for the kernel and for code that folds `..` first; spell it without `..` after a link';

/**
 * Why a file with more than one name (a hard link) cannot be judged by the name given: its other
 * names may lie outside the working directories or under a deny rule (`ln ~/.ssh/id_rsa notes.txt`),
 * and reading or appending to any name reaches the same bytes. Only the kernel knows every name.
 */
export const sharedFileReason =
  'the file has other names (hard links) that may lie outside the working directories or under a deny rule; use the name the user knows';

/** Places package managers and git fill with hard links from their own stores on purpose. */
const linkedStorePattern = /\/(?:node_modules|\.pnpm-store)\/|\/\.git\/objects\//;

/** Whether the physical path is a regular file with other names, outside the places that link on purpose. */
function hasOtherNames(physical: string): boolean {
  if (linkedStorePattern.test(physical)) return false;
  // The decision under way usually lstat'ed this very path already (see physicalOnDisk).
  const known = knownLeafKind(physical);
  if (known !== undefined) return known === 'shared';
  try {
    const stats = lstatSync(physical, { throwIfNoEntry: false });
    return stats?.isFile() === true && stats.nlink > 1;
  } catch {
    return false;
  }
}

/**
 * Resolves a path a tool will touch. Relative paths start at `cwd`; `~/` at `home`. Anything the
 * engine cannot spell the way the OS will (NUL bytes, backslashes, `~user`, drive letters, control characters)
 * comes back as unresolvable.
 */
export function canonicalizePath(
  raw: string,
  base: PathBase,
  realpath: RealpathFn = fsRealpath,
): CanonicalPath | UnresolvablePath {
  if (raw.includes('\0')) return { unresolvable: 'the path contains a NUL byte' };
  if (raw.includes('\\')) return { unresolvable: 'the path contains a backslash' };
  if (/^[A-Za-z]:/.test(raw)) return { unresolvable: 'the path is a Windows drive path' };
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { unresolvable: 'the path contains control characters' };
  if (!isAbsolute(base.cwd) || base.cwd.includes('\\'))
    return { unresolvable: 'the working directory is not a POSIX path' };
  let expanded = raw;
  if (raw === '~') expanded = base.home;
  else if (raw.startsWith('~/')) expanded = joinUnfolded(base.home, raw.slice(2));
  else if (raw.startsWith('~')) return { unresolvable: "the path names another user's home directory" };
  const absolute = joinUnfolded(base.cwd, expanded);
  const lexical = isCleanAbsolute(absolute) ? absolute : posix.normalize(absolute).replace(/(.)\/+$/, '$1');
  const physical = physicalPath(absolute, realpath);
  // Without `..` the text and the kernel walk the same components; with it, both answers must agree.
  if (hasDotDotSegment(absolute) && physicalPath(lexical, realpath) !== physical)
    return { unresolvable: ambiguousPathReason, ambiguous: true };
  if (realpath === fsRealpath && knownLeafKind(physical) !== 'missing' && hasOtherNames(physical))
    return { unresolvable: sharedFileReason, ambiguous: true };
  return { lexical, physical };
}

/** Whether a segment of the path is exactly `..` (`a/../b`, `..`, `a/..`; not `..a` or `a..`). */
function hasDotDotSegment(path: string): boolean {
  for (let at = path.indexOf('..'); at !== -1; at = path.indexOf('..', at + 1)) {
    const end = at + 2;
    if ((at === 0 || path.charCodeAt(at - 1) === 47) && (end === path.length || path.charCodeAt(end) === 47))
      return true;
  }
  return false;
}

/** Narrowing helper for {@link canonicalizePath}'s result. */
export function isUnresolvable(path: CanonicalPath | UnresolvablePath): path is UnresolvablePath {
  return 'unresolvable' in path;
}

/**
 * Other spellings under which the same file may be reached, matched against deny rules only:
 * `/proc/self/root/x` is `/x`, `/proc/self/cwd/x` is `<cwd>/x`, and trailing dots or spaces in a
 * segment name the same file on Windows filesystems.
 */
export function aliasSpellings(path: string, cwd: string): string[] {
  const spellings: string[] = [];
  const proc = path.startsWith('/proc/') ? /^\/proc\/[^/]+\/(root|cwd)(\/.*)?$/.exec(path) : null;
  if (proc) spellings.push(proc[1] === 'root' ? (proc[2] ?? '/') : join(cwd, proc[2] ?? ''));
  // Only a segment ending in a dot or a space can be trimmed.
  if (!/[. ](?:\/|$)/.test(path)) return spellings;
  const trimmed = path
    .split('/')
    .map((segment) => (segment === '.' || segment === '..' ? segment : segment.replace(/[. ]+$/, '')))
    .join('/');
  if (trimmed !== path) spellings.push(trimmed);
  return spellings;
}
