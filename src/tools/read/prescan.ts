import type { FileHandle } from 'node:fs/promises';
import { type LineIndex, recordChunkStart } from './line-index.ts';
import { type NewlineCounter, releaseNewlineCounter, takeNewlineCounter } from './newline-count.ts';

/** What {@link prescanLineIndex} needs. */
export interface PrescanOptions {
  index: LineIndex;
  /** 0-based line the caller wants to reach. */
  startLine: number;
  /** Bytes per read; a multiple of the index step. */
  chunkBytes: number;
  /** Reads kept in flight; each holds one buffer of `chunkBytes`. */
  inFlight: number;
  signal?: AbortSignal;
}

interface PendingRead {
  counter: NewlineCounter;
  position: number;
  read: Promise<number>;
}

/**
 * Extends a file's line index towards `startLine` with several reads in flight. The kernel's copy
 * runs on libuv's threads while this thread counts newlines (SIMD) in the buffers that have arrived,
 * so a cold read deep into a large file costs about the copy alone instead of copy plus count. Stops
 * at the step that holds `startLine`, or at the end of the file.
 */
export async function prescanLineIndex(handle: FileHandle, options: PrescanOptions): Promise<void> {
  const { index, chunkBytes } = options;
  const step = index.chunkBytes;
  const known = index.newlinesBefore.length - 1;
  let line = index.newlinesBefore[known] ?? 0;
  let next = known * step;
  let done = line >= options.startLine || index.totalLines !== undefined;
  const pending: PendingRead[] = [];
  const schedule = () => {
    const counter = takeNewlineCounter(chunkBytes);
    const position = next;
    next += chunkBytes;
    const read = handle.read(counter.buffer, 0, chunkBytes, position).then((result) => result.bytesRead);
    pending.push({ counter, position, read });
  };
  try {
    while (!done && pending.length < options.inFlight) schedule();
    while (pending.length > 0 && !done) {
      options.signal?.throwIfAborted();
      const current = pending.shift() as PendingRead;
      const bytesRead = await current.read;
      let offset = 0;
      while (offset < bytesRead) {
        recordChunkStart(index, (current.position + offset) / step, line);
        const stepEnd = Math.min(bytesRead, offset + step);
        const newlines = current.counter.count(offset, stepEnd);
        if (line + newlines >= options.startLine) {
          done = true;
          break;
        }
        line += newlines;
        offset = stepEnd;
      }
      releaseNewlineCounter(current.counter);
      // The end of the file: the window reader takes it from the last boundary and counts the total.
      if (bytesRead < chunkBytes) done = true;
      if (!done) schedule();
    }
  } finally {
    // Buffers still being filled are released only once their reads have finished.
    for (const read of pending) {
      await read.read.catch(() => 0);
      releaseNewlineCounter(read.counter);
    }
  }
}
