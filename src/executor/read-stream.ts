import type { StreamEvent } from '../core/index.ts';

/** Why {@link readStream} stopped reading. */
export type StreamReadEnd = 'ended' | 'stopped' | 'aborted';

/**
 * Reads a model stream event by event until it ends, `onEvent` returns false, or one of `signals`
 * aborts. An abort stops the reading at once, even while the provider is still waiting for its next
 * event (a provider slow to honour its signal cannot hold up an interrupt), and the stream is asked
 * to close. A stream that throws rejects.
 */
export async function readStream(
  stream: AsyncIterable<StreamEvent>,
  signals: readonly AbortSignal[],
  onEvent: (event: StreamEvent) => boolean,
): Promise<StreamReadEnd> {
  if (signals.some((signal) => signal.aborted)) return 'aborted';
  const iterator = stream[Symbol.asyncIterator]();
  const listening = new AbortController();
  const aborted = new Promise<'aborted'>((resolve) => {
    for (const signal of signals)
      signal.addEventListener('abort', () => resolve('aborted'), { once: true, signal: listening.signal });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted') {
        release(iterator);
        return 'aborted';
      }
      if (next.done) return 'ended';
      if (!onEvent(next.value)) {
        release(iterator);
        return 'stopped';
      }
    }
  } finally {
    listening.abort();
  }
}

/** Asks an iterator to close without waiting: a generator parked in an await closes when it wakes. */
function release(iterator: AsyncIterator<StreamEvent>): void {
  try {
    iterator.return?.()?.catch(() => undefined);
  } catch {
    // A stream that cannot close has nothing more to give us.
  }
}
