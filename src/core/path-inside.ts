import { isAbsolute, relative } from 'node:path';

/**
 * An absolute path with no `.` or `..` segment, no doubled slash and no trailing slash (but `/`):
 * already in the form `path.resolve` and `path.normalize` would give it.
 */
export const isCleanAbsolute = (path: string): boolean =>
  path.startsWith('/') &&
  (path === '/' || !path.endsWith('/')) &&
  path.indexOf('//') === -1 &&
  // Most paths have no `/.` at all; one that has (`/.git`, `/.env`) is looked at closer.
  (path.indexOf('/.') === -1 || !/\/\.{1,2}(?:\/|$)/.test(path));
const cleanAbsolute = isCleanAbsolute;

/** True when `path` is `directory` or below it, compared segment by segment (`/srv/proj2` is not inside `/srv/proj`). */
export function isInsideDirectory(path: string, directory: string): boolean {
  if (cleanAbsolute(path) && cleanAbsolute(directory)) {
    // Both already in the form path.relative would bring them to: a string comparison says the same
    // (a clean path has no `..` segment, so a name such as `...` or `..x` below the directory is inside).
    return insideClean(path, directory);
  }
  const rel = relative(directory, path);
  // Only a first segment that is exactly `..` leaves the directory; `...` and `..x` are names in it.
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
}

/** {@link isInsideDirectory} for two paths already known to be clean absolute paths. */
export function insideClean(path: string, directory: string): boolean {
  if (!path.startsWith(directory)) return false;
  return path.length === directory.length || directory === '/' || path.charCodeAt(directory.length) === 47; // '/'
}
