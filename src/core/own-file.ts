import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isInsideDirectory } from './path-inside.ts';

/**
 * Files efferent reads on its own behalf, with no permission decision in between: settings,
 * `.mcp.json`, memory files (`CLAUDE.md`), custom commands, a repository's git configuration. A
 * cloned repository chooses what these names are: a link to `~/.ssh/id_rsa` would put the key into
 * the prompt, a link to `/dev/zero` or `/dev/stdin` would hang start-up. So every such read goes
 * through {@link readOwnFileSync}: the file must be a regular file, no larger than a bound, and, when
 * the caller names the folder it belongs to, physically inside that folder once links are followed
 * (a link from `CLAUDE.md` to `AGENTS.md` next to it is fine).
 */
export interface OwnFileOptions {
  /** Folders the file must lie in once links are followed; omitted for files the user placed. */
  within?: string | readonly string[];
  /**
   * The project's root: a path named under it is the project's file, so it must also lie inside it
   * once links are followed (as if `within` named the root); a path elsewhere is the user's.
   */
  projectRoot?: string;
  /** The most bytes read. */
  maxBytes: number;
  /** Over `maxBytes`: keep the first `maxBytes` (`cut: true` in the result) instead of refusing. */
  cutOversize?: boolean;
}

/** What reading one file gave: its text, nothing (missing), or why efferent would not read it. */
export type OwnFileResult =
  | { kind: 'read'; text: string; realPath: string; cut: boolean }
  | { kind: 'missing' }
  | { kind: 'refused'; reason: string };

const missingCodes = new Set(['ENOENT', 'ENOTDIR']);

function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Reads a file efferent uses for itself (see {@link OwnFileOptions}). Never blocks on a FIFO or a
 * device, never reads more than `maxBytes + 1` bytes, and never quotes the file's content in a reason.
 */
export function readOwnFileSync(path: string, options: OwnFileOptions): OwnFileResult {
  let realPath: string;
  try {
    realPath = realpathSync(path);
  } catch (error) {
    const code = codeOf(error);
    if (code && missingCodes.has(code)) return { kind: 'missing' };
    return { kind: 'refused', reason: `${path} cannot be read (${code ?? 'unknown error'})` };
  }
  const within =
    options.within ??
    (options.projectRoot !== undefined && isInsideDirectory(path, options.projectRoot)
      ? options.projectRoot
      : undefined);
  if (within !== undefined) {
    const folders = (typeof within === 'string' ? [within] : within).map(realFolder);
    if (!folders.some((folder) => isInsideDirectory(realPath, folder)))
      return {
        kind: 'refused',
        reason: `${path} leads through a symbolic link to ${realPath}, outside ${folders[0] ?? 'its folder'}; efferent reads it only from inside`,
      };
  }
  let fd: number;
  try {
    // O_NOFOLLOW: a link swapped in since realpath fails instead of being followed; O_NONBLOCK: a FIFO
    // opens at once (and is refused below) instead of waiting for a writer.
    fd = openSync(realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    if (code && missingCodes.has(code)) return { kind: 'missing' };
    return { kind: 'refused', reason: `${path} cannot be read (${code ?? 'unknown error'})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { kind: 'refused', reason: `${path} is not a regular file` };
    if (stats.size > options.maxBytes && !options.cutOversize)
      return { kind: 'refused', reason: `${path} is larger than ${options.maxBytes} bytes` };
    const buffer = Buffer.alloc(Math.min(stats.size, options.maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    const cut = length > options.maxBytes;
    if (cut && !options.cutOversize)
      return { kind: 'refused', reason: `${path} is larger than ${options.maxBytes} bytes` };
    return {
      kind: 'read',
      text: buffer.subarray(0, Math.min(length, options.maxBytes)).toString('utf8'),
      realPath,
      cut,
    };
  } finally {
    closeSync(fd);
  }
}

/** Whether `path` lies inside `folder` once links in both are followed (false when `path` is missing). */
export function liesPhysicallyInside(path: string, folder: string): boolean {
  try {
    return isInsideDirectory(realpathSync(path), realFolder(folder));
  } catch {
    return false;
  }
}

/** {@link readOwnFileSync} for async callers (the files are small; the read itself is bounded). */
export async function readOwnFile(path: string, options: OwnFileOptions): Promise<OwnFileResult> {
  return readOwnFileSync(path, options);
}
