import { accessSync, constants, statSync } from 'node:fs';

/** Whether `path` is a regular file this process may execute (links followed). */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
