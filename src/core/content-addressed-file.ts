import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileBeneath, writeFileBeneath } from './session-files.ts';

/**
 * Writes `text` to `<folder>/<sha256 prefix>.txt` and returns the absolute path. The name is
 * content-addressed, so the same text is stored once; the write goes to a temporary file that is
 * renamed into place, so a reader never sees half a file.
 */
export async function writeContentAddressedFile(folder: string, text: string): Promise<string> {
  const name = `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.txt`;
  const path = join(folder, name);
  await mkdir(folder, { recursive: true });
  try {
    const existing = await stat(path);
    if (existing.size === Buffer.byteLength(text)) return path;
  } catch {
    // Not there yet.
  }
  const temporary = join(folder, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  return path;
}

/**
 * {@link writeContentAddressedFile} for a folder below a directory efferent owns (the session folder):
 * no component below `root` is followed if it is a link, so a planted link cannot redirect the write.
 */
export function writeContentAddressedFileBeneath(root: string, folder: string, text: string): string {
  const name = `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.txt`;
  const relative = `${folder}/${name}`;
  const existing = readFileBeneath(root, relative);
  if (existing === undefined || existing !== text) writeFileBeneath(root, relative, text);
  return join(root, relative);
}
