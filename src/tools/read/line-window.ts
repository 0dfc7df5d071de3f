import { open } from 'node:fs/promises';
import { type LineIndex, nearestStart, recordChunkStart } from './line-index.ts';
import { releaseNewlineCounter, takeNewlineCounter } from './newline-count.ts';
import { pendingLineIndexBuild } from './index-worker.ts';
import { prescanLineIndex } from './prescan.ts';

/** What to read from a large text file. */
export interface LineWindowRequest {
  /** 0-based first line. */
  startLine: number;
  maxLines: number;
  /** Characters kept per line; the rest is dropped and marked. */
  maxLineChars: number;
  /** Stop once the numbered output (each line plus an 8-character prefix) passes this many characters. */
  maxChars: number;
  /** Keep scanning after the window to count all lines. */
  countAllLines: boolean;
  index?: LineIndex;
  /** Bytes per read, a multiple of the index step (tests use small ones to cross many boundaries). */
  readBytes?: number;
  signal?: AbortSignal;
}

/** The lines read, and what was learned about the file on the way. */
export interface LineWindow {
  lines: string[];
  /** Lines whose text was cut at `maxLineChars`. */
  truncatedLines: number;
  /** True when `maxChars` stopped the read before `maxLines`. */
  cutByBudget: boolean;
  /** Known when the scan reached the end of the file. */
  totalLines: number | undefined;
  /** Characters of numbered output for `lines` (text plus an 8-character prefix each). */
  chars: number;
}

/** Bytes read per system call. */
export const readChunkBytes = 4 << 20;

/** Distance between the positions the line index remembers; a warm read skips at most this much. */
export const windowChunkBytes = 1 << 20;

/** Files at least this large are pre-scanned with several reads in flight before a deep window. */
export const prescanMinBytes = 64 << 20;

/** `cat -n` adds a 6-column number, a tab and a newline to every line. */
export const numberingOverhead = 8;

/**
 * Reads a window of lines from a file of any size without loading it. Whole chunks before the window
 * are skipped by counting their newlines (SIMD), only the window's lines are decoded, each kept to
 * `maxLineChars`; memory stays at one chunk plus the window. Newline counts at chunk boundaries go into
 * `index`, so a later read of the same file version starts near its target.
 */
export async function readLineWindow(path: string, request: LineWindowRequest): Promise<LineWindow> {
  const step = request.index?.chunkBytes ?? windowChunkBytes;
  const chunkBytes = request.readBytes ?? Math.max(step, Math.floor(readChunkBytes / step) * step);
  if (request.index) await awaitBackgroundIndex(request.index, request.startLine, request.signal);
  const handle = await open(path, 'r');
  try {
    if (request.index && request.startLine > 0 && (await handle.stat()).size >= prescanMinBytes) {
      await prescanLineIndex(handle, {
        index: request.index,
        startLine: request.startLine,
        chunkBytes,
        inFlight: 6,
        ...(request.signal ? { signal: request.signal } : {}),
      });
    }
    return await readWindowFrom(handle, request, step, chunkBytes);
  } finally {
    await handle.close();
  }
}

/**
 * Waits for the background build of `index` when the index does not yet reach `startLine`: the worker
 * is already reading those bytes, so scanning them here too would only compete with it.
 */
async function awaitBackgroundIndex(
  index: LineIndex,
  startLine: number,
  signal?: AbortSignal,
): Promise<void> {
  const pending = pendingLineIndexBuild(index);
  if (!pending || (index.newlinesBefore.at(-1) ?? 0) >= startLine) return;
  signal?.throwIfAborted();
  if (!signal) return pending;
  let onAbort = () => {};
  const aborted = new Promise<void>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([pending, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

async function readWindowFrom(
  handle: Awaited<ReturnType<typeof open>>,
  request: LineWindowRequest,
  step: number,
  chunkBytes: number,
): Promise<LineWindow> {
  const start = request.index ? nearestStart(request.index, request.startLine) : { byte: 0, newlines: 0 };
  const maxLineBytes = request.maxLineChars * 4;
  const counter = takeNewlineCounter(chunkBytes);
  const buffer = counter.buffer;
  const result: LineWindow = {
    lines: [],
    truncatedLines: 0,
    cutByBudget: false,
    totalLines: undefined,
    chars: 0,
  };
  const windowEnd = request.startLine + request.maxLines;
  let line = start.newlines;
  let position = start.byte;
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let lineOverflow = false;
  let lastByte = -1;
  let collecting = true;

  const finishLine = () => {
    let text = Buffer.concat(pieces, pieceBytes).toString('utf8');
    if (line === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (lineOverflow || text.length > request.maxLineChars) {
      text = `${text.slice(0, request.maxLineChars)}… [line truncated]`;
      result.truncatedLines++;
    }
    result.lines.push(text);
    result.chars += text.length + numberingOverhead;
    pieces = [];
    pieceBytes = 0;
    lineOverflow = false;
    if (result.lines.length >= request.maxLines) collecting = false;
    else if (result.chars > request.maxChars) {
      result.cutByBudget = true;
      collecting = false;
    }
  };

  // A warm start is at most one step before the window: read a little first, full chunks after.
  let readSize = start.byte > 0 ? Math.min(chunkBytes, 2 * step) : chunkBytes;
  try {
    for (;;) {
      request.signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, readSize, position);
      readSize = chunkBytes;
      if (bytesRead === 0) break;
      lastByte = buffer[bytesRead - 1] ?? -1;
      let offset = 0;
      if (!collecting) {
        line += counter.count(0, bytesRead);
        position += bytesRead;
        continue;
      }
      if (line < request.startLine) {
        // Skip whole index steps while the window lies beyond them, remembering each step's start.
        while (offset < bytesRead) {
          if (request.index) recordChunkStart(request.index, (position + offset) / step, line);
          const stepEnd = Math.min(bytesRead, offset + step);
          const newlines = counter.count(offset, stepEnd);
          if (line + newlines >= request.startLine) break;
          line += newlines;
          offset = stepEnd;
        }
        if (offset >= bytesRead) {
          position += bytesRead;
          continue;
        }
        while (line < request.startLine) {
          offset = buffer.indexOf(10, offset) + 1;
          line++;
        }
      }
      while (offset < bytesRead) {
        const inWindow = collecting && line < windowEnd;
        if (!inWindow) {
          line += counter.count(offset, bytesRead);
          break;
        }
        const newline = buffer.indexOf(10, offset);
        const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
        const room = maxLineBytes - pieceBytes;
        if (end - offset > room) lineOverflow = true;
        const take = Math.min(end - offset, Math.max(0, room));
        if (take > 0) {
          pieces.push(Buffer.from(buffer.subarray(offset, offset + take)));
          pieceBytes += take;
        }
        if (end === bytesRead) break;
        finishLine();
        line++;
        offset = end + 1;
      }
      position += bytesRead;
      if (!collecting && !request.countAllLines) return result;
    }
    // A last line without a trailing newline still counts.
    const endsWithoutNewline = lastByte !== -1 && lastByte !== 10;
    if (endsWithoutNewline && collecting && line >= request.startLine && line < windowEnd) finishLine();
    result.totalLines = line + (endsWithoutNewline ? 1 : 0);
    if (request.index) request.index.totalLines = result.totalLines;
    return result;
  } finally {
    releaseNewlineCounter(counter);
  }
}
