import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';

/** How many `stat` calls are in flight at once: enough to keep libuv's pool busy, few enough to bound memory. */
const statConcurrency = 64;

/**
 * Orders paths newest first by modification time, ties (and unreadable files, which count as oldest)
 * by path, so the order is global and the same whichever ripgrep (or the JS walker) listed them.
 * ripgrep's own `--sortr modified` is not used: before version 14 it sorts each directory on its own,
 * and in every version it makes the search single-threaded.
 *
 * `paths` are relative to `root` (or absolute). With `limit`, only the newest `limit` are returned,
 * kept in a bounded selection rather than sorting everything.
 */
export async function newestFirst(
  root: string,
  paths: readonly string[],
  signal?: AbortSignal,
  limit?: number,
): Promise<string[]> {
  const times = new Float64Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      signal?.throwIfAborted();
      const index = next++;
      const path = paths[index] as string;
      const stats = await stat(isAbsolute(path) ? path : join(root, path)).catch(() => undefined);
      times[index] = stats?.mtimeMs ?? Number.NEGATIVE_INFINITY;
    }
  };
  await Promise.all(Array.from({ length: Math.min(statConcurrency, paths.length) }, worker));
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
