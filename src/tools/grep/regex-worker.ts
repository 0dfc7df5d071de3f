import { startWorker } from '../shared/worker-thread.ts';

/**
 * Matching runs in a worker thread so that a pattern with catastrophic backtracking (`(a+)+$` on a
 * long line of `a`s) can neither freeze the event loop nor outlive an abort: the thread is terminated.
 * The worker's code is plain JavaScript with no imports, so it runs the same from source and from dist.
 */
const workerSource = `
const { parentPort } = require('node:worker_threads');
let regex;
parentPort.on('message', (message) => {
  if (message.type === 'compile') {
    regex = new RegExp(message.source, message.flags);
    return;
  }
  const { text, multiline } = message;
  const lines = text.split('\\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const found = [];
  if (multiline) {
    const starts = [];
    let offset = 0;
    for (const line of lines) { starts.push(offset); offset += line.length + 1; }
    const lineAt = (index) => {
      let low = 0, high = starts.length - 1;
      while (low < high) { const middle = (low + high + 1) >> 1; if (starts[middle] <= index) low = middle; else high = middle - 1; }
      return low;
    };
    const byLine = new Map();
    for (const match of text.matchAll(regex)) {
      if (match[0] === '' && byLine.size > 0) continue;
      const first = lineAt(match.index);
      const last = lineAt(match.index + Math.max(0, match[0].length - 1));
      for (let line = first; line <= last; line++) byLine.set(line, [...(byLine.get(line) ?? []), match[0]]);
    }
    found.push(...byLine);
  } else {
    lines.forEach((raw, index) => {
      const line = raw.endsWith('\\r') ? raw.slice(0, -1) : raw;
      const matches = [...line.matchAll(regex)].map((match) => match[0]);
      if (matches.length > 0) found.push([index, matches]);
    });
  }
  parentPort.postMessage(found);
});
`;

/** Raised when one file's matching exceeded the deadline. */
export class RegexTimeoutError extends Error {}

/** A regular expression compiled in its own thread; `dispose` ends the thread. */
export interface RegexWorker {
  /** Matching line indexes (0-based) of `text` and the matched texts. */
  match(text: string, multiline: boolean): Promise<Map<number, string[]>>;
  dispose(): Promise<void>;
}

/** Starts a worker for `regex`; each `match` must finish within `deadlineMs` or the worker is ended. */
export function startRegexWorker(regex: RegExp, deadlineMs: number, signal?: AbortSignal): RegexWorker {
  const worker = startWorker(workerSource, { eval: true });
  worker.unref();
  worker.postMessage({ type: 'compile', source: regex.source, flags: regex.flags });
  let ended = false;
  const end = () => {
    if (ended) return Promise.resolve();
    ended = true;
    return worker.terminate().then(() => undefined);
  };
  return {
    match(text, multiline) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) {
          void end();
          reject(signal.reason);
          return;
        }
        const finish = (error: unknown, value?: Map<number, string[]>) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          worker.off('message', onMessage);
          worker.off('error', onError);
          if (error) reject(error);
          else resolve(value as Map<number, string[]>);
        };
        const onMessage = (found: Array<[number, string[]]>) => finish(undefined, new Map(found));
        const onError = (error: Error) => finish(error);
        const onAbort = () => {
          void end();
          finish(signal?.reason);
        };
        const timer = setTimeout(() => {
          void end();
          finish(new RegexTimeoutError(`matching took longer than ${deadlineMs} ms`));
        }, deadlineMs);
        worker.on('message', onMessage);
        worker.on('error', onError);
        signal?.addEventListener('abort', onAbort, { once: true });
        worker.postMessage({ type: 'match', text, multiline });
      });
    },
    dispose: end,
  };
}
