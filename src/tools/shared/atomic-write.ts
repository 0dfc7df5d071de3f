import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chown, type FileHandle, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Options for {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode for a file that does not exist yet (default 0o666 minus umask). Existing files keep theirs. */
  mode?: number;
  /** Checked before the rename: an aborted write leaves the old file untouched. */
  signal?: AbortSignal;
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
  const target = await resolveLinkTarget(filePath);
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
}

/** Removes temp files a killed writer left in `directory`; returns the names removed. */
export async function removeStaleTempFiles(directory: string): Promise<string[]> {
  const names = await readdir(directory).catch(() => [] as string[]);
  const stale = names.filter(isAtomicTempFile);
  await Promise.all(stale.map((name) => unlink(join(directory, name)).catch(() => {})));
  return stale;
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
