import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The folder under a session directory where oversized results are kept. */
export const toolResultsFolder = 'tool-results';

/**
 * Writes `text` to `<sessionDir>/tool-results/<sha256 prefix>.txt` and returns the absolute path.
 * The name is content-addressed, so the same output is stored once; the write goes to a temporary
 * file first and is renamed into place, so a reader never sees half a file.
 */
export async function persistText(sessionDir: string, text: string): Promise<string> {
  const folder = join(sessionDir, toolResultsFolder);
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
