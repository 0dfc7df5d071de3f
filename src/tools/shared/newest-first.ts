import { statSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import { type StampedPaths, type StatBatch, sharedStatPool } from './stat-pool.ts';

/** A file's modification time; a file that vanished or can't be read counts as oldest. */
export function mtimeOf(path: string): number {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NEGATIVE_INFINITY;
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
}

interface Stamped {
  path: string;
  time: number;
}

/** Newer first; equal times (and unreadable files, which count as oldest) by path. */
function newerFirst(a: Stamped, b: Stamped): number {
  if (a.time !== b.time) return a.time > b.time ? -1 : 1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * Orders paths newest first by modification time, ties by path, so the order is global and the same
 * whichever ripgrep (or the JS walker) listed them. ripgrep's own `--sortr modified` is not used:
 * before version 14 it sorts each directory on its own, and in every version it makes the walk
 * single-threaded.
 *
 * Each path is stat'ed as soon as it is added, so the stats run while ripgrep is still walking (in
 * its own threads) instead of after it. The stats are synchronous: for metadata already in the
 * kernel's cache that is three to four times faster than the thread pool. With a `limit`, only the
 * newest `limit` are held (the rest are dropped as they fall out), so memory follows the page.
 */
export class NewestFirst {
  private kept: Stamped[] = [];
  /** Once `limit` paths are held: the oldest time among them; anything older can be dropped at once. */
  private floor = Number.NEGATIVE_INFINITY;
  private readonly prefix: string;
  private readonly holdAt: number;

  /** `root` is what relative paths are relative to; `limit` (optional) is how many are returned. */
  constructor(
    root: string,
    readonly limit = Number.POSITIVE_INFINITY,
    /** Paths per batch sent to a stat thread by {@link enqueue}. */
    private readonly batchSize = statBatch,
  ) {
    this.prefix = root.endsWith(sep) ? root : root + sep;
    this.holdAt = Number.isFinite(limit) ? 2 * limit + 256 : Number.POSITIVE_INFINITY;
  }

  /** Stats `path` (relative to the root, or absolute) and keeps it if it can still be returned. */
  readonly add = (path: string): void => {
    this.addTimed(path, mtimeOf(isAbsolute(path) ? path : this.prefix + path));
  };

  /**
   * Like {@link add}, but the stat runs on a stat thread (in batches), so the caller can go on reading
   * ripgrep's output; {@link settled} waits for the stats still running. Without stat threads, it is
   * {@link add}.
   */
  readonly enqueue = (path: string): void => {
    this.queued.push(path);
    if (this.queued.length >= this.batchSize) this.sendQueued();
  };

  /** Waits until every path given to {@link enqueue} is stat'ed and placed. */
  async settled(signal?: AbortSignal): Promise<void> {
    this.sendQueued();
    while (this.batches.length > 0) {
      const batches = this.batches;
      this.batches = [];
      await Promise.all(batches);
      signal?.throwIfAborted();
    }
  }

  /**
   * Like {@link enqueue} for many paths at once: `lines` holds whole lines of paths as ripgrep prints
   * them (relative to the root, a leading `./` dropped), each ended by `separator` (`\n`, or NUL as
   * with ripgrep's `--null`, so names may hold newlines), and is handed to a stat thread as it is,
   * which decodes and stats them and sends back only the newest of them, so the main thread never
   * makes a string per path. Without stat threads, the lines are decoded and stat'ed here.
   */
  readonly enqueueLines = (lines: Uint8Array, separator: '\n' | '\0' = '\n'): void => {
    if (lines.length > 0) this.send(separator === '\0' ? { lines, separator } : { lines });
  };

  /**
   * Places paths whose times are already known (as `statSync`'s `mtimeMs`; -Infinity for a path that
   * can't be stat'ed), such as a stat helper's answer.
   */
  merge(stamped: StampedPaths): void {
    this.addStamped(stamped);
  }

  private queued: string[] = [];
  private batches: Promise<void>[] = [];

  private sendQueued(): void {
    if (this.queued.length === 0) return;
    const paths = this.queued;
    this.queued = [];
    this.send({ paths });
  }

  /**
   * Stats a batch on a stat thread, which returns only the batch's newest `limit` (any path among the
   * newest `limit` overall is among the newest of its own batch), or here when there are no threads.
   */
  private send(batch: StatBatch): void {
    const pool = sharedStatPool();
    if (!pool) {
      this.addBatch(batch);
      return;
    }
    const limit = Number.isFinite(this.limit) ? this.limit : undefined;
    this.batches.push(
      pool.newest(this.prefix, batch, limit).then(
        (stamped) => this.addStamped(stamped),
        // A stat thread that failed: the batch is stat'ed here instead.
        () => this.addBatch(batch),
      ),
    );
  }

  private addStamped({ paths, times }: StampedPaths): void {
    for (let index = 0; index < paths.length; index++)
      this.addTimed(paths[index] as string, times[index] as number);
  }

  private addBatch(batch: StatBatch): void {
    if ('paths' in batch) {
      for (const path of batch.paths) this.add(path);
      return;
    }
    for (const line of linesOf(batch.lines, batch.separator)) this.add(line);
  }

  /** Keeps `path`, modified at `time`, if it can still be returned. */
  private addTimed(path: string, time: number): void {
    if (time < this.floor) return;
    this.kept.push({ path, time });
    if (this.kept.length > this.holdAt) {
      this.kept = this.kept.sort(newerFirst).slice(0, this.limit);
      this.floor = (this.kept[this.kept.length - 1] as Stamped).time;
    }
  }

  /** The paths added so far, newest first, at most `limit` of them. */
  ordered(): string[] {
    const sorted = this.kept.sort(newerFirst);
    const count = Math.min(sorted.length, this.limit);
    const paths = new Array<string>(count);
    for (let index = 0; index < count; index++) paths[index] = (sorted[index] as Stamped).path;
    return paths;
  }
}

/** The paths in whole lines of ripgrep's output (each ended by `separator`), a leading `./` dropped. */
export function linesOf(bytes: Uint8Array, separator: '\n' | '\0' = '\n'): string[] {
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('utf8')
    .split(separator);
  lines.pop();
  return lines.map((line) => (line.startsWith('./') ? line.slice(2) : line));
}

/** Paths per batch sent to a stat thread. */
const statBatch = 1024;

/** Paths stat'ed between two turns of the event loop. */
const statChunk = 2_000;

/**
 * {@link NewestFirst} over a finished list: `paths` relative to `root` (or absolute), the newest `limit`
 * (default all) returned. Yields to the event loop every 2,000 stats.
 */
export async function newestFirst(
  root: string,
  paths: readonly string[],
  signal?: AbortSignal,
  limit?: number,
): Promise<string[]> {
  const order = new NewestFirst(root, limit);
  for (let start = 0; start < paths.length; start += statChunk) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    const end = Math.min(paths.length, start + statChunk);
    for (let index = start; index < end; index++) order.add(paths[index] as string);
  }
  return order.ordered();
}
