import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** A file's modification time; a file that vanished or can't be read counts as oldest. */
function mtimeOf(path: string): number {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NEGATIVE_INFINITY;
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
}

/** Paths stat'ed between two turns of the event loop. */
const statChunk = 2_000;

/**
 * Orders paths newest first by modification time, ties (and unreadable files, which count as oldest)
 * by path, so the order is global and the same whichever ripgrep (or the JS walker) listed them.
 * ripgrep's own `--sortr modified` is not used: before version 14 it sorts each directory on its own,
 * and in every version it makes the search single-threaded.
 *
 * `paths` are relative to `root` (or absolute). With `limit`, only the newest `limit` are returned.
 * The stats are synchronous, in chunks with a yield to the event loop between them: for metadata
 * already in the kernel's cache that is three to four times faster than the thread pool.
 */
export async function newestFirst(
  root: string,
  paths: readonly string[],
  signal?: AbortSignal,
  limit?: number,
): Promise<string[]> {
  const times = new Float64Array(paths.length);
  for (let start = 0; start < paths.length; start += statChunk) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    const end = Math.min(paths.length, start + statChunk);
    for (let index = start; index < end; index++) {
      const path = paths[index] as string;
      times[index] = mtimeOf(isAbsolute(path) ? path : join(root, path));
    }
  }
  const order = Array.from(paths.keys());
  const compare = (a: number, b: number) => {
    const byTime = (times[b] as number) - (times[a] as number);
    if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
    const left = paths[a] as string;
    const right = paths[b] as string;
    return left < right ? -1 : left > right ? 1 : 0;
  };
  order.sort(compare);
  const kept = limit === undefined ? order : order.slice(0, limit);
  return kept.map((index) => paths[index] as string);
}
