import type { Worker, WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running `source` (with `eval: true`) or a file. `node:worker_threads`, with the
 * performance modules it brings, is loaded by the first worker a tool starts instead of by
 * importing efferent.
 */
export function startWorker(source: string, options: WorkerOptions): Worker {
  const { Worker: WorkerThread } = process.getBuiltinModule('node:worker_threads');
  return new WorkerThread(source, options);
}
