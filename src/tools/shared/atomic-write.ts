import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import {
  chown,
  type FileHandle,
  lstat,
  open,
  readdir,
  realpath,
  rename,
  stat,
  unlink,
} from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { openCheckedDirectory } from '../../core/index.ts';
import { noteHostWrite } from '../../sandbox/repository-guard.ts';

/** Options for {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode for a file that does not exist yet (default 0o666 minus umask). Existing files keep theirs. */
  mode?: number;
  /** Checked before the rename: an aborted write leaves the old file untouched. */
  signal?: AbortSignal;
  /**
   * The physical path a permission decision judged for this write: the file is written there, in
   * that directory opened once and verified, or not at all (see core/checked-path.ts).
   */
  checked?: string;
}

/** Temp files carry this marker so leftovers from a crash are recognisable and safe to delete. */
export const atomicTempMarker = '.efferent-tmp-';

/** The temp file name used beside `filePath`: hidden, marked, unique per call. */
export function atomicTempPath(filePath: string): string {
  const suffix = `${process.pid}-${randomBytes(6).toString('hex')}`;
  return join(dirname(filePath), `.${basename(filePath)}${atomicTempMarker}${suffix}`);
}

/** True for a file name {@link writeFileAtomic} creates (only ever left behind by a killed process). */
export function isAtomicTempFile(name: string): boolean {
  return name.startsWith('.') && name.includes(atomicTempMarker);
}

/**
 * Writes a file so that a reader (or a crash) sees either the old content or the new, never a mix:
 * the data goes to a temp file in the same directory, is fsynced, then renamed over the target.
 * Existing files keep their mode (and owner, when permitted); a symlink's target is replaced, not the
 * link. On any failure the temp file is removed and the original is untouched.
 */
export async function writeFileAtomic(
  filePath: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  options.signal?.throwIfAborted();
  const pinned = options.checked === undefined ? undefined : openCheckedDirectory(filePath, options.checked);
  if (!pinned) {
    const target = await resolveLinkTarget(filePath);
    return writeResolved(target, dirname(target), data, options);
  }
  try {
    return await writeResolved(pinned.target, pinned.directory, data, options);
  } finally {
    pinned.close();
  }
}

/** Writes `target` (a name, or a name in a checked directory descriptor); `directory` is its real folder. */
async function writeResolved(
  target: string,
  directory: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  const existing = await stat(target).catch(() => undefined);
  const mode = existing ? existing.mode & 0o7777 : (options.mode ?? 0o666);
  const tempPath = atomicTempPath(target);
  let handle: FileHandle | undefined;
  try {
    handle = await open(tempPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, mode);
    await handle.writeFile(data);
    // The umask may have narrowed the mode at creation; an existing file's mode is restored exactly.
    if (existing) {
      await handle.chmod(mode);
      if (existing.uid !== process.getuid?.() || existing.gid !== process.getgid?.()) {
        await chown(tempPath, existing.uid, existing.gid).catch(() => {});
      }
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    options.signal?.throwIfAborted();
    await rename(tempPath, target);
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(tempPath).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(target));
  // A protected file written here during a sandboxed command is efferent's, not the command's.
  noteHostWrite(join(await realpath(directory).catch(() => directory), basename(target)));
  await sweepDirectory(directory);
}

/** A temp file older than this was left by a killed writer: no live write takes a minute to rename. */
export const staleTempAgeMs = 60_000;

/** When each directory was last swept, so a burst of writes reads the directory once a minute. */
const lastSweep = new Map<string, number>();

async function sweepDirectory(directory: string): Promise<void> {
  const now = Date.now();
  if (now - (lastSweep.get(directory) ?? Number.NEGATIVE_INFINITY) < staleTempAgeMs) return;
  lastSweep.set(directory, now);
  if (lastSweep.size > 1024) lastSweep.delete(lastSweep.keys().next().value as string);
  await removeStaleTempFiles(directory, now - staleTempAgeMs).catch(() => {});
}

/**
 * Removes temp files a killed writer left in `directory` (our naming, regular files, last modified
 * before `olderThan`, default: a minute ago); returns the names removed. Runs after every atomic write
 * to a directory, at most once a minute per directory.
 */
export async function removeStaleTempFiles(
  directory: string,
  olderThan = Date.now() - staleTempAgeMs,
): Promise<string[]> {
  const names = await readdir(directory).catch(() => [] as string[]);
  const removed: string[] = [];
  await Promise.all(
    names.filter(isAtomicTempFile).map(async (name) => {
      const path = join(directory, name);
      const stats = await lstat(path).catch(() => undefined);
      if (!stats?.isFile() || stats.mtimeMs >= olderThan) return;
      await unlink(path).then(
        () => removed.push(name),
        () => {},
      );
    }),
  );
  return removed.sort();
}

async function resolveLinkTarget(filePath: string): Promise<string> {
  try {
    return await realpath(filePath);
  } catch {
    // A missing file (or a dangling link): write where we were told.
    return filePath;
  }
}

/** Makes the rename itself durable; some file systems refuse to open directories, which is fine. */
async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Best effort only: the data itself is already synced.
  } finally {
    await handle?.close().catch(() => {});
  }
}
