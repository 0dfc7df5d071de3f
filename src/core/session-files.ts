import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { isAbsolute } from 'node:path';

/**
 * Host-side access to files under a directory efferent owns (the session folder: output files, cwd
 * files, todo lists, persisted results) that never follows a link. Each path component below the
 * root is opened with `O_NOFOLLOW` relative to the directory opened before it (through
 * `/proc/self/fd/<fd>/`, Node's stand-in for `openat`), so a link planted anywhere below the root —
 * even by a process racing the write — makes the operation fail instead of landing elsewhere.
 */

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Whether `/proc/self/fd` can stand in for `openat` and tell where a descriptor leads (Linux). */
export const procFdAvailable = process.platform === 'linux' && existsSync('/proc/self/fd');

/** The error for a component that is a link or not a directory; says what to do next. */
function refuse(root: string, relative: string): Error {
  const error = new Error(
    `Refusing to use ${root}/${relative}: a component is a symbolic link or not a regular entry. Remove it, or start a new session.`,
  ) as NodeJS.ErrnoException;
  error.code = 'ELOOP';
  return error;
}

function components(relative: string): string[] {
  if (isAbsolute(relative))
    throw new Error(`Expected a path relative to the session folder, got ${relative}.`);
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.length === 0 || parts.includes('..')) {
    throw new Error(`Expected a path below the session folder without "..", got ${relative}.`);
  }
  return parts;
}

/** A directory below `root`, opened without following links; the caller closes the descriptor. */
function openParent(root: string, parts: readonly string[], create: boolean): number {
  if (create) mkdirSync(root, { recursive: true, mode: 0o700 });
  return openDirectoryBeneath(root, parts, create);
}

/**
 * Opens `root/parts…` as a directory without following a link in any component below `root`
 * (each opened `O_NOFOLLOW` relative to the one before, through `/proc/self/fd`); with `create`,
 * missing directories are made (mode 0700). `root` must exist. The caller closes the descriptor.
 */
export function openDirectoryBeneath(root: string, parts: readonly string[], create: boolean): number {
  let fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const part of parts.filter((name) => name !== '' && name !== '.')) {
      if (part === '..') throw new Error(`Refusing a path with ".." below ${root}.`);
      const path = `/proc/self/fd/${fd}/${part}`;
      if (create) {
        try {
          // mkdir never follows a link in its last component: an existing link gives EEXIST.
          mkdirSync(path, { mode: 0o700 });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
      const next = openSync(path, directoryFlags);
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Where there is no /proc (not Linux, so no sandbox either): refuse links found by lstat. */
function checkWithoutProc(root: string, parts: readonly string[], create: boolean, relative: string): void {
  if (create) mkdirSync(root, { recursive: true, mode: 0o700 });
  let path = root;
  for (const part of parts) {
    path = `${path}/${part}`;
    let info = lstatSafe(path);
    if (!info && create) {
      mkdirSync(path, { mode: 0o700 });
      info = lstatSafe(path);
    }
    if (!info) return;
    if (!info.isDirectory()) throw refuse(root, relative);
  }
}

function lstatSafe(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Options for {@link openBeneath}. */
export interface OpenBeneathOptions {
  /** Create missing directories on the way (mode 0700). */
  createParents?: boolean;
  /** Mode for a file created by `O_CREAT` (default 0600). */
  mode?: number;
}

/**
 * Opens `root/relative` with `flags` (plus `O_NOFOLLOW`) without following a link in any component
 * below `root`; returns the descriptor. The opened file must be a regular file, else it is closed
 * and an `ELOOP` error thrown. `root` itself is trusted (efferent chose it).
 */
export function openBeneath(
  root: string,
  relative: string,
  flags: number,
  options: OpenBeneathOptions = {},
): number {
  const parts = components(relative);
  const name = parts.pop() as string;
  const mode = options.mode ?? 0o600;
  let fd: number;
  if (procFdAvailable) {
    const parent = openParent(root, parts, options.createParents === true);
    try {
      fd = openSync(
        `/proc/self/fd/${parent}/${name}`,
        flags | constants.O_NOFOLLOW | constants.O_NONBLOCK,
        mode,
      );
    } finally {
      closeSync(parent);
    }
  } else {
    checkWithoutProc(root, parts, options.createParents === true, relative);
    fd = openSync(`${root}/${relative}`, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw refuse(root, relative);
  }
  return fd;
}

/** Creates `root/relative` afresh (fails if anything is there) and returns its descriptor. */
export function createBeneath(root: string, relative: string, options: OpenBeneathOptions = {}): number {
  return openBeneath(root, relative, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, {
    createParents: true,
    ...options,
  });
}

/** The text of `root/relative`, or undefined when it is missing, a link or not a regular file. */
export function readFileBeneath(
  root: string,
  relative: string,
  maxBytes = 64 * 1024 * 1024,
): string | undefined {
  let fd: number;
  try {
    fd = openBeneath(root, relative, constants.O_RDONLY);
  } catch {
    return undefined;
  }
  try {
    const size = Math.min(fstatSync(fd).size, maxBytes);
    const buffer = Buffer.alloc(size);
    let offset = 0;
    while (offset < size) {
      const read = readSync(fd, buffer, offset, size - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return buffer.subarray(0, offset).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `root/relative` with `data` atomically (temp file beside it, then rename) without
 * following a link anywhere below `root`: a link at the target is replaced, never written through.
 */
export function writeFileBeneath(root: string, relative: string, data: string | Uint8Array): void {
  const parts = components(relative);
  const name = parts.pop() as string;
  const temporary = `.${name}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  const write = (directory: string) => {
    const fd = openSync(
      `${directory}/${temporary}`,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      // rename replaces a link at the target itself; it never follows it.
      renameSync(`${directory}/${temporary}`, `${directory}/${name}`);
    } catch (error) {
      try {
        unlinkSync(`${directory}/${temporary}`);
      } catch {
        // Already gone.
      }
      throw error;
    }
  };
  if (procFdAvailable) {
    const parent = openParent(root, parts, true);
    try {
      write(`/proc/self/fd/${parent}`);
    } finally {
      closeSync(parent);
    }
  } else {
    checkWithoutProc(root, parts, true, relative);
    write(parts.length === 0 ? root : `${root}/${parts.join('/')}`);
  }
}

/** Creates the directory `root/relative` (and its parents) without following links; returns nothing. */
export function mkdirBeneath(root: string, relative: string): void {
  const parts = components(relative);
  if (procFdAvailable) closeSync(openParent(root, parts, true));
  else checkWithoutProc(root, parts, true, relative);
}
