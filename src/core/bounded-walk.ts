import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** What a {@link walkBounded} visitor wants done with an entry. */
export type WalkStep = 'descend' | 'skip' | 'stop';

/** How a bounded walk ended: it saw everything, a visitor stopped it, or a limit cut it short. */
export type WalkEnd = 'complete' | 'stopped' | 'depth-limit' | 'entry-limit';

/**
 * A breadth-first walk under `root`, level by level, that reads at most `maxDepth` levels and visits
 * at most `maxEntries` entries. `visit` sees each entry's path and directory entry and says whether
 * to go into it (only directories are entered; links are not followed), leave it, or end the walk.
 * Folders that cannot be read are passed over.
 */
export function walkBounded(
  root: string,
  limits: { maxDepth: number; maxEntries: number },
  visit: (path: string, entry: Dirent) => WalkStep,
): WalkEnd {
  let seen = 0;
  let level = [root];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth >= limits.maxDepth) return 'depth-limit';
    const next: string[] = [];
    for (const directory of level) {
      let entries: Dirent[];
      try {
        entries = readdirSync(directory, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > limits.maxEntries) return 'entry-limit';
        const path = join(directory, entry.name);
        const step = visit(path, entry);
        if (step === 'stop') return 'stopped';
        if (step === 'descend' && entry.isDirectory()) next.push(path);
      }
    }
    level = next;
  }
  return 'complete';
}
