import { isAbsolute, relative } from 'node:path';

/** True when `path` is `directory` or below it, compared segment by segment (`/srv/proj2` is not inside `/srv/proj`). */
export function isInsideDirectory(path: string, directory: string): boolean {
  const rel = relative(directory, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
