import { open } from 'node:fs/promises';
import { checkpointInterval, type LineIndex, nearestCheckpoint, recordCheckpoint } from './line-index.ts';

/** What to read from a large text file. */
export interface LineWindowRequest {
  /** 0-based first line. */
  startLine: number;
  maxLines: number;
  /** Characters kept per line; the rest is dropped and marked. */
  maxLineChars: number;
  /** Stop once the numbered output (each line plus an 8-character prefix) passes this many characters. */
  maxChars: number;
  /** Keep scanning after the window to count all lines (only for files we can afford to scan). */
  countAllLines: boolean;
  index?: LineIndex;
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

const chunkSize = 1 << 20;

/** `cat -n` adds a 6-column number, a tab and a newline to every line. */
export const numberingOverhead = 8;

/**
 * Reads a window of lines from a file of any size without loading it: chunks are scanned for
 * newlines and only the window's lines are decoded, each kept to `maxLineChars`. Memory stays at one
 * chunk plus the window, so a window near the end of a 1 GB file costs a scan, not 1 GB of heap. Line
 * starts every few thousand lines are recorded in `index` so later reads can seek.
 */
export async function readLineWindow(path: string, request: LineWindowRequest): Promise<LineWindow> {
  const start = request.index ? nearestCheckpoint(request.index, request.startLine) : { line: 0, byte: 0 };
  const maxLineBytes = request.maxLineChars * 4;
  const handle = await open(path, 'r');
  const buffer = Buffer.allocUnsafe(chunkSize);
  const result: LineWindow = {
    lines: [],
    truncatedLines: 0,
    cutByBudget: false,
    totalLines: undefined,
    chars: 0,
  };
  let line = start.line;
  let position = start.byte;
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let lineOverflow = false;
  let lastByte = -1;
  let collecting = true;
  const windowEnd = request.startLine + request.maxLines;

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

  try {
    for (;;) {
      request.signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, chunkSize, position);
      if (bytesRead === 0) break;
      const chunk = bytesRead === chunkSize ? buffer : buffer.subarray(0, bytesRead);
      lastByte = chunk[bytesRead - 1] ?? -1;
      let offset = 0;
      while (offset < bytesRead) {
        const inWindow = collecting && line >= request.startLine && line < windowEnd;
        const newline = chunk.indexOf(10, offset);
        const end = newline === -1 ? bytesRead : newline;
        if (inWindow) {
          const room = maxLineBytes - pieceBytes;
          if (end - offset > room) lineOverflow = true;
          const take = Math.min(end - offset, Math.max(0, room));
          if (take > 0) {
            pieces.push(Buffer.from(chunk.subarray(offset, offset + take)));
            pieceBytes += take;
          }
        }
        if (newline === -1) break;
        if (inWindow) finishLine();
        line++;
        offset = newline + 1;
        if (request.index && line % checkpointInterval === 0)
          recordCheckpoint(request.index, line, position + offset);
        if (!collecting && !request.countAllLines) return result;
      }
      position += bytesRead;
    }
    // A last line without a trailing newline still counts.
    const endsWithoutNewline = lastByte !== -1 && lastByte !== 10;
    if (endsWithoutNewline && collecting && line >= request.startLine && line < windowEnd) finishLine();
    result.totalLines = line + (endsWithoutNewline ? 1 : 0);
    if (request.index) request.index.totalLines = result.totalLines;
    return result;
  } finally {
    await handle.close();
  }
}
