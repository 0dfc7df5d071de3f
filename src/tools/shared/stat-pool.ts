import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from './worker-thread.ts';

/**
 * The stat threads' code: plain JavaScript with no imports of ours, so it runs the same from source
 * and from a bundle. Each request is a batch of paths joined by NUL (no file name holds one), relative
 * to `prefix` or absolute; the reply is their modification times in the same order, a file that
 * vanished or can't be read counting as oldest (-Infinity).
 */
const workerSource = `
const { parentPort } = require('node:worker_threads');
const { statSync } = require('node:fs');
const { isAbsolute } = require('node:path');
parentPort.on('message', ({ id, prefix, paths }) => {
  const list = paths.split('\\0');
  const times = new Float64Array(list.length);
  for (let index = 0; index < list.length; index++) {
    const path = list[index];
    let time = -Infinity;
    try {
      const stats = statSync(isAbsolute(path) ? path : prefix + path, { throwIfNoEntry: false });
      if (stats) time = stats.mtimeMs;
    } catch {}
    times[index] = time;
  }
  parentPort.postMessage({ id, times }, [times.buffer]);
});
`;

interface Waiting {
  resolve: (times: Float64Array) => void;
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
    worker.on('message', (message: { id: number; times: Float64Array }) => {
      const waiting = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      this.settle(slot);
      waiting?.resolve(message.times);
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
  mtimes(prefix: string, paths: readonly string[]): Promise<Float64Array> {
    const slot = this.turn++ % this.workers.length;
    const worker = this.workers[slot] as Worker;
    const id = this.nextId++;
    if ((this.inFlight[slot] ?? 0) === 0) worker.ref();
    this.inFlight[slot] = (this.inFlight[slot] ?? 0) + 1;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, prefix, paths: paths.join('\0') });
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
export function sharedStatPool(): Pick<StatPool, 'mtimes'> | undefined {
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
