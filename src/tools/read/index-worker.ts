import type { Worker } from 'node:worker_threads';
import { startWorker } from '../shared/worker-thread.ts';
import type { LineIndex } from './line-index.ts';
import { newlineCountModule } from './newline-count.ts';

/**
 * The worker's code: plain JavaScript with no imports of ours, so it runs the same from source and
 * from dist. It reads the file from the last known step to the end, counts newlines per step with the
 * same WebAssembly kernel as the main thread (a JS loop where that fails), and sends back the newline
 * count before every step boundary and the total. If the file's size or mtime changed meanwhile, it
 * sends `stale` instead.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { path, size, mtimeMs, step, firstStep, newlinesBefore: known, chunkBytes, wasm } = workerData;
let buffer;
let count;
try {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(wasm));
  buffer = Buffer.from(instance.exports.memory.buffer, 0, chunkBytes);
  const kernel = instance.exports.count;
  count = (start, end) => (end > start ? kernel(start, end - start) : 0);
} catch {
  buffer = Buffer.allocUnsafe(chunkBytes);
  count = (start, end) => {
    let total = 0;
    for (let at = buffer.indexOf(10, start); at !== -1 && at < end; at = buffer.indexOf(10, at + 1)) total++;
    return total;
  };
}
const sameVersion = (stats) => stats.size === size && stats.mtimeMs === mtimeMs;
const fd = fs.openSync(path, 'r');
try {
  const boundaries = [];
  let line = known;
  let position = firstStep * step;
  let lastByte = -1;
  if (!sameVersion(fs.fstatSync(fd))) throw new Error('stale');
  for (;;) {
    const bytesRead = fs.readSync(fd, buffer, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    lastByte = buffer[bytesRead - 1];
    for (let offset = 0; offset < bytesRead; offset += step) {
      const end = Math.min(bytesRead, offset + step);
      line += count(offset, end);
      if (end === offset + step) boundaries.push(line);
    }
    position += bytesRead;
  }
  if (!sameVersion(fs.fstatSync(fd))) throw new Error('stale');
  const totalLines = line + (lastByte !== -1 && lastByte !== 10 ? 1 : 0);
  parentPort.postMessage({ boundaries, totalLines });
} catch (error) {
  parentPort.postMessage({ stale: true, reason: String(error && error.message) });
} finally {
  fs.closeSync(fd);
}
`;

/** Below this many unindexed bytes a later read scans them itself (a few milliseconds): no thread. */
const minBackgroundBytes = 16 << 20;

/** Bytes the worker reads at a time. */
const workerChunkBytes = 4 << 20;

const builds = new WeakMap<LineIndex, Promise<void>>();

/** What the worker needs to know about the file version the index belongs to. */
export interface IndexedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * Completes `index` to the end of the file in a worker thread, once per index: the read that started it
 * returns at once, and later reads anywhere in the same file version seek instead of scanning. The
 * thread does not keep the process alive; if it fails or the file changes, the index simply stays
 * partial (reads then scan as before). Less than `minBytes` (16 MB) left to index is left to the reads.
 */
export function completeLineIndexInBackground(
  file: IndexedFile,
  index: LineIndex,
  minBytes = minBackgroundBytes,
): void {
  if (index.totalLines !== undefined || builds.has(index)) return;
  const firstStep = index.newlinesBefore.length - 1;
  const step = index.chunkBytes;
  if (file.size - firstStep * step < minBytes) return;
  const chunkBytes = Math.max(step, Math.floor(workerChunkBytes / step) * step);
  const build = new Promise<void>((resolve) => {
    let worker: Worker;
    try {
      worker = startWorker(workerSource, {
        eval: true,
        workerData: {
          ...file,
          step,
          firstStep,
          newlinesBefore: index.newlinesBefore[firstStep] ?? 0,
          chunkBytes,
          wasm: newlineCountModule(chunkBytes),
        },
      });
    } catch {
      resolve();
      return;
    }
    worker.unref();
    worker.once('message', (message: { boundaries?: number[]; totalLines?: number; stale?: boolean }) => {
      if (!message.stale && message.boundaries && message.totalLines !== undefined) {
        index.newlinesBefore = [...index.newlinesBefore.slice(0, firstStep + 1), ...message.boundaries];
        index.totalLines = message.totalLines;
      }
      resolve();
    });
    worker.once('error', () => resolve());
    worker.once('exit', () => resolve());
  });
  builds.set(index, build);
}

/**
 * The background build of `index` still running, if any, so a read that needs a line beyond what the
 * index knows can wait for it instead of scanning the same bytes a second time.
 */
export function pendingLineIndexBuild(index: LineIndex): Promise<void> | undefined {
  const build = builds.get(index);
  return build && index.totalLines === undefined ? build : undefined;
}
