import { isAbsolute, relative } from 'node:path';

/** An absolute path with no `.` or `..` segment, no doubled slash and no trailing slash (but `/`). */
const cleanAbsolute = (path: string) =>
  path.startsWith('/') && (path === '/' || !path.endsWith('/')) && !/\/\.{1,2}(?:\/|$)|\/\//.test(path);

/** True when `path` is `directory` or below it, compared segment by segment (`/srv/proj2` is not inside `/srv/proj`). */
export function isInsideDirectory(path: string, directory: string): boolean {
  if (cleanAbsolute(path) && cleanAbsolute(directory)) {
    // Both already in the form path.relative would bring them to: a string comparison says the same
    // (a clean path has no `..` segment, so a name such as `...` or `..x` below the directory is inside).
    if (path === directory) return true;
    return path.startsWith(directory === '/' ? '/' : `${directory}/`);
  }
  const rel = relative(directory, path);
  // Only a first segment that is exactly `..` leaves the directory; `...` and `..x` are names in it.
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
}
