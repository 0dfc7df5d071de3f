import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * `cleanupPeriodDays`: at the start of `efferent run`, saved session transcripts
 * (`<config>/projects/<project>/<session>.jsonl`, every project) last written more than that many
 * days ago are deleted, as Claude Code does with its own. Without the key nothing is deleted.
 * Resolves with how many files were removed; a file that cannot be read or removed is left alone.
 */
export async function deleteOldTranscripts(
  configDir: string,
  days: number,
  now = Date.now(),
): Promise<number> {
  const cutoff = now - days * 24 * 60 * 60 * 1000;
  const projects = join(configDir, 'projects');
  let removed = 0;
  let folders: string[];
  try {
    folders = await readdir(projects);
  } catch {
    return 0;
  }
  for (const folder of folders) {
    let files: string[];
    try {
      files = await readdir(join(projects, folder));
    } catch {
      continue;
    }
    for (const file of files) {
      if (!file.endsWith('.jsonl')) continue;
      const path = join(projects, folder, file);
      try {
        const info = await stat(path);
        if (!info.isFile() || info.mtimeMs >= cutoff) continue;
        await rm(path);
        removed += 1;
      } catch {
        // Gone already, or not ours to remove: leave it.
      }
    }
  }
  return removed;
}
