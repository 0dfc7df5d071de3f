import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from './worker-thread.ts';

/**
 * The stat threads' code: plain JavaScript with no imports of ours, so it runs the same from source
 * and from a bundle. A request is a batch of paths, relative to `prefix` or absolute: either `paths`,
 * joined by NUL (no file name holds one), or `lines`, the bytes of whole `\n`-ended lines as ripgrep
 * prints them (a leading `./` dropped). A file that vanished or can't be read counts as oldest
 * (-Infinity). Without `limit` the reply is every path's modification time, in order; with one it is
 * only the batch's newest `limit` paths and their times (ties by path, the order `NewestFirst` uses),
 * so neither the times of paths that cannot be returned nor their strings cross back.
 */
const workerSource = `
const { parentPort } = require('node:worker_threads');
const { statSync } = require('node:fs');
const { isAbsolute } = require('node:path');
function mtimeOf(path) {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats ? stats.mtimeMs : -Infinity;
  } catch {
    return -Infinity;
  }
}
function listOf(message) {
  if (message.paths !== undefined) return message.paths.split('\\0');
  const bytes = message.lines;
  const separator = message.separator === '\\0' ? '\\0' : '\\n';
  const list = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').split(separator);
  list.pop();
  for (let index = 0; index < list.length; index++) {
    const line = list[index];
    if (line.charCodeAt(0) === 46 && line.charCodeAt(1) === 47) list[index] = line.slice(2);
  }
  return list;
}
function newerFirst(a, b) {
  if (a.time !== b.time) return a.time > b.time ? -1 : 1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
function newest(prefix, list, limit) {
  let kept = [];
  let floor = -Infinity;
  const holdAt = 2 * limit + 256;
  for (const path of list) {
    const time = mtimeOf(isAbsolute(path) ? path : prefix + path);
    if (time < floor) continue;
    kept.push({ path, time });
    if (kept.length > holdAt) {
      kept = kept.sort(newerFirst).slice(0, limit);
      floor = kept[kept.length - 1].time;
    }
  }
  if (kept.length > limit) kept = kept.sort(newerFirst).slice(0, limit);
  const paths = new Array(kept.length);
  const times = new Float64Array(kept.length);
  for (let index = 0; index < kept.length; index++) {
    paths[index] = kept[index].path;
    times[index] = kept[index].time;
  }
  return { paths, times };
}
parentPort.on('message', (message) => {
  const { id, prefix, limit } = message;
  const list = listOf(message);
  if (limit === undefined) {
    const times = new Float64Array(list.length);
    for (let index = 0; index < list.length; index++) {
      const path = list[index];
      times[index] = mtimeOf(isAbsolute(path) ? path : prefix + path);
    }
    parentPort.postMessage({ id, times, paths: message.lines ? list : undefined }, [times.buffer]);
    return;
  }
  const { paths, times } = newest(prefix, list, limit);
  parentPort.postMessage({ id, paths, times }, [times.buffer]);
});
`;

/** Paths and their modification times, in the same order. */
export interface StampedPaths {
  paths: readonly string[];
  times: Float64Array;
}

/**
 * A batch for the stat threads: paths, or the bytes of whole lines of ripgrep's output, each ended by
 * `separator` (default `\n`; NUL with ripgrep's `--null`).
 */
export type StatBatch = { paths: readonly string[] } | { lines: Uint8Array; separator?: '\n' | '\0' };

interface Waiting {
  resolve: (reply: { times: Float64Array; paths?: string[] }) => void;
  reject: (error: Error) => void;
}

/**
 * Threads that stat batches of paths, so a listing's stats run beside ripgrep's walk and the main
 * thread only reads ripgrep's output. The threads start on first use, live for the process and never
 * keep it alive on their own: a thread is referenced only while one of its batches is in flight.
 */
class StatPool {
  private readonly workers: Worker[] = [];
  private readonly inFlight: number[] = [];
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private turn = 0;
  broken = false;

  constructor(size: number) {
    for (let slot = 0; slot < size; slot++) this.workers.push(this.start(slot));
  }

  private start(slot: number): Worker {
    const worker = startWorker(workerSource, { eval: true });
    this.inFlight[slot] = 0;
    worker.unref();
    worker.on('message', (message: { id: number; times: Float64Array; paths?: string[] }) => {
      const waiting = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      this.settle(slot);
      waiting?.resolve(message);
    });
    const fail = (error: Error) => {
      this.broken = true;
      for (const [id, waiting] of this.waiting) {
        this.waiting.delete(id);
        waiting.reject(error);
      }
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('A stat thread exited.')));
    return worker;
  }

  private settle(slot: number): void {
    const left = (this.inFlight[slot] ?? 1) - 1;
    this.inFlight[slot] = left;
    if (left === 0) this.workers[slot]?.unref();
  }

  /** Modification times of `paths` (relative to `prefix`, or absolute), in order. */
  async mtimes(prefix: string, paths: readonly string[]): Promise<Float64Array> {
    return (await this.request({ prefix, paths: paths.join('\0') })).times;
  }

  /**
   * The batch's newest `limit` paths (relative to `prefix`, or absolute) with their times, ties by
   * path; all of them when `limit` is undefined. Line bytes are copied to the thread, so the caller
   * can still read them (to stat them itself if the thread fails).
   */
  async newest(prefix: string, batch: StatBatch, limit?: number): Promise<StampedPaths> {
    if ('paths' in batch) {
      const request = { prefix, paths: batch.paths.join('\0'), limit };
      const reply = await this.request(request);
      return { paths: reply.paths ?? batch.paths, times: reply.times };
    }
    const reply = await this.request({ prefix, lines: batch.lines, separator: batch.separator, limit });
    return { paths: reply.paths ?? [], times: reply.times };
  }

  private request(message: {
    prefix: string;
    paths?: string;
    lines?: Uint8Array;
    separator?: '\n' | '\0' | undefined;
    limit?: number | undefined;
  }): Promise<{ times: Float64Array; paths?: string[] }> {
    const slot = this.turn++ % this.workers.length;
    const worker = this.workers[slot] as Worker;
    const id = this.nextId++;
    if ((this.inFlight[slot] ?? 0) === 0) worker.ref();
    this.inFlight[slot] = (this.inFlight[slot] ?? 0) + 1;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }
}

let pool: StatPool | undefined;

/** Stat threads to use: `EFFERENT_STAT_THREADS` if set, else one per spare core, one to four. */
function poolSize(): number {
  const configured = Number(process.env['EFFERENT_STAT_THREADS']);
  if (Number.isInteger(configured) && configured >= 0) return configured;
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/** The process's stat threads, started on first call; undefined when threads are off or can't start. */
export function sharedStatPool(): Pick<StatPool, 'mtimes' | 'newest'> | undefined {
  if (pool && !pool.broken) return pool;
  if (pool?.broken) return undefined;
  const size = poolSize();
  if (size === 0) return undefined;
  try {
    pool = new StatPool(size);
    return pool;
  } catch {
    return undefined;
  }
}
