import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, resolve } from 'node:path';

/**
 * Canonical paths for permission checks: a path is judged both as written (the link) and as the
 * filesystem resolves it (the target), and containment is decided on path segments, never on
 * string prefixes (`/srv/proj2` is not inside `/srv/proj`).
 */

/** Resolves an existing path to its real location, or returns undefined when it does not exist. */
export type RealpathFn = (path: string) => string | undefined;

/**
 * The real filesystem, for production use. A dangling symlink still resolves to where it points
 * (its target may be created later, and a deny rule on the target must already apply).
 */
export const fsRealpath: RealpathFn = (path) => {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    try {
      return realpathSync.native(current);
    } catch {
      try {
        if (!lstatSync(current).isSymbolicLink()) return undefined;
        current = resolve(dirname(current), readlinkSync(current));
      } catch {
        return hops === 0 ? undefined : current;
      }
    }
  }
  return current;
};

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
}

/** What a path resolves against. */
export interface PathBase {
  cwd: string;
  home: string;
}

/** True when `path` is `directory` or below it, compared segment by segment. */
export function isInsideDirectory(path: string, directory: string): boolean {
  const rel = relative(directory, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Walks a path one segment at a time, resolving each existing prefix with realpath, so `..` after
 * a symlink goes where the kernel would go, and a symlinked parent of a new file is followed.
 */
function physicalPath(absolute: string, realpath: RealpathFn): string {
  const segments = absolute.split('/').filter((segment) => segment !== '');
  let current = '/';
  let exists = true;
  for (const segment of segments) {
    if (segment === '.') continue;
    if (segment === '..') {
      current = posix.dirname(current);
      continue;
    }
    const next = join(current, segment);
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
  else if (raw.startsWith('~/')) expanded = join(base.home, raw.slice(2));
  else if (raw.startsWith('~')) return { unresolvable: "the path names another user's home directory" };
  const absolute = isAbsolute(expanded) ? expanded : join(base.cwd, expanded);
  const lexical = posix.normalize(absolute).replace(/(.)\/+$/, '$1');
  return { lexical, physical: physicalPath(lexical, realpath) };
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
  const proc = /^\/proc\/[^/]+\/(root|cwd)(\/.*)?$/.exec(path);
  if (proc) spellings.push(proc[1] === 'root' ? (proc[2] ?? '/') : join(cwd, proc[2] ?? ''));
  const trimmed = path
    .split('/')
    .map((segment) => (segment === '.' || segment === '..' ? segment : segment.replace(/[. ]+$/, '')))
    .join('/');
  if (trimmed !== path) spellings.push(trimmed);
  return spellings;
}
