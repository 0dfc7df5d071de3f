import type { Stats } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { EfferentError, ErrorCodes, type FileReadRecord, type ToolUseContext } from '../../core/index.ts';
import { decodeText } from '../shared/text-file.ts';
import { fileVersion, lineIndexFor } from './line-index.ts';
import { completeLineIndexInBackground } from './index-worker.ts';
import { numberingOverhead, prescanMinBytes, readLineWindow, windowChunkBytes } from './line-window.ts';
import { readLimits } from './read.prompt.ts';

/** A window of a text file as Read returns it. */
export interface TextView {
  /** The shown lines joined with LF (long lines already cut). */
  content: string;
  /** 1-based number of the first shown line. */
  startLine: number;
  numLines: number;
  /** Known unless the file is large and was not scanned to the end. */
  totalLines: number | undefined;
  /** Notes for the model: partial view, offset past the end, empty file, cut lines. */
  notes: string[];
}

/** The text view plus what to remember about it for Edit and Write. */
export interface TextRead {
  view: TextView;
  record: FileReadRecord;
}

/** Read's output cap in characters, from the token cap (about 4 characters per token). */
export function outputCharBudget(env: Readonly<Record<string, string | undefined>>): {
  chars: number;
  tokens: number;
} {
  const override = Number(env['CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS']);
  const tokens = Number.isFinite(override) && override > 0 ? override : readLimits.maxOutputTokens;
  return { chars: tokens * 4, tokens };
}

/** UTF-16 files above this (64 MiB) are not decoded whole by Read. */
const maxWholeUtf16Bytes = 64 * 1024 ** 2;

async function startsWithUtf16Bom(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0xff && buffer[1] === 0xfe;
  } finally {
    await handle.close();
  }
}

function truncateLine(line: string): { text: string; cut: boolean } {
  const clean = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (clean.length <= readLimits.maxLineChars) return { text: clean, cut: false };
  return { text: `${clean.slice(0, readLimits.maxLineChars)}… [line truncated]`, cut: true };
}

/**
 * Reads a text window. Files up to 256 KB are decoded whole (BOM, UTF-16, Latin-1, CRLF handled) so a
 * full view can be recorded for Edit's content check; larger ones are streamed line by line. Without
 * offset/limit an oversized result becomes a partial first page; with them it is an error.
 */
export async function readTextWindow(
  path: string,
  stats: Stats,
  input: { offset?: number | undefined; limit?: number | undefined },
  context: Pick<ToolUseContext, 'run'>,
  source: string = path,
): Promise<TextRead> {
  const explicit = input.offset !== undefined || input.limit !== undefined;
  const startIndex = input.offset && input.offset > 0 ? input.offset - 1 : 0;
  const maxLines = input.limit ?? readLimits.defaultLines;
  const budget = outputCharBudget(context.run.env);
  const signal = context.run.abortController.signal;

  let lines: string[];
  let totalLines: number | undefined;
  let cutLines = 0;
  let cutByBudget = false;
  let fullText: string | undefined;
  // The line scanner below works on bytes as UTF-8; UTF-16 text is decoded whole instead, up to a cap.
  const utf16 = stats.size > readLimits.maxWholeFileBytes && (await startsWithUtf16Bom(source));
  if (utf16 && stats.size > maxWholeUtf16Bytes) {
    throw new EfferentError(
      ErrorCodes.fileTooLarge,
      `${path} is UTF-16 text of ${stats.size.toLocaleString('en-US')} bytes, too large to decode at once. Convert a copy to UTF-8 with Bash (iconv -f UTF-16 -t UTF-8 ${path} > /tmp/converted.txt) and read that, or search it with Grep.`,
    );
  }
  if (stats.size <= readLimits.maxWholeFileBytes || utf16) {
    const { text } = decodeText(await readFile(source, { signal }));
    fullText = text;
    const all = text === '' ? [] : text.split('\n');
    if (all.length > 0 && all[all.length - 1] === '') all.pop();
    totalLines = all.length;
    lines = [];
    let chars = 0;
    for (const raw of all.slice(startIndex, startIndex + maxLines)) {
      const { text: shown, cut } = truncateLine(raw);
      if (chars + shown.length + numberingOverhead > budget.chars) {
        cutByBudget = true;
        break;
      }
      chars += shown.length + numberingOverhead;
      if (cut) cutLines++;
      lines.push(shown);
    }
  } else {
    const index = lineIndexFor(context.run.readFileState, path, fileVersion(stats), windowChunkBytes);
    const window = await readLineWindow(source, {
      startLine: startIndex,
      maxLines,
      maxLineChars: readLimits.maxLineChars,
      maxChars: budget.chars,
      countAllLines: false,
      index,
      signal,
    });
    // A large file is indexed to its end in a worker thread after its first read, so later windows
    // anywhere in this version of it cost only the window.
    if (stats.size >= prescanMinBytes) {
      completeLineIndexInBackground({ path, size: stats.size, mtimeMs: stats.mtimeMs }, index);
    }
    lines = window.lines;
    totalLines = window.totalLines;
    cutLines = window.truncatedLines;
    cutByBudget = window.cutByBudget;
    if (cutByBudget) lines.pop(); // the line that crossed the budget
  }

  if (cutByBudget && explicit) {
    throw new EfferentError(
      ErrorCodes.fileTooLarge,
      `The requested part of ${path} is larger than the output limit of ${budget.tokens.toLocaleString('en-US')} tokens. Read fewer lines at a time (a smaller limit), or use Grep to find the content you need.`,
    );
  }

  const notes: string[] = [];
  const startLine = startIndex + 1;
  const sizeText = `${stats.size.toLocaleString('en-US')} bytes`;
  const totalText = totalLines === undefined ? '' : ` of ${totalLines.toLocaleString('en-US')}`;
  const partialView = cutByBudget;
  if (stats.size === 0) notes.push('The file exists but is empty.');
  else if (lines.length === 0 && totalLines !== undefined && startIndex >= totalLines) {
    notes.push(
      `The file has only ${totalLines} lines, fewer than the offset ${input.offset}. Use a smaller offset.`,
    );
  } else if (partialView) {
    notes.push(
      `This is a PARTIAL view of ${path} (${sizeText}): lines ${startLine}–${startLine + lines.length - 1}${totalText}. The file is too large to show at once (limit about ${budget.tokens.toLocaleString('en-US')} tokens). Read further with offset and limit, or use Grep to search it.`,
    );
  } else if (totalLines === undefined || startIndex + lines.length < totalLines) {
    notes.push(
      `Showing lines ${startLine}–${startLine + lines.length - 1}${totalText}. Use offset ${startLine + lines.length} to read on.`,
    );
  }
  if (cutLines > 0)
    notes.push(`${cutLines} line(s) longer than ${readLimits.maxLineChars} characters were cut.`);

  const content = lines.join('\n');
  const coversWholeFile = fullText !== undefined && startIndex === 0 && lines.length === totalLines;
  const record: FileReadRecord = coversWholeFile
    ? { content: fullText as string, timestamp: stats.mtimeMs }
    : { content, timestamp: stats.mtimeMs, offset: startLine, limit: lines.length };
  if (partialView) record.isPartialView = true;
  return { view: { content, startLine, numLines: lines.length, totalLines, notes }, record };
}
