import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LineIndex } from './line-index.ts';
import { readLineWindow } from './line-window.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'efferent-window-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectedLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

describe('readLineWindow', () => {
  it('agrees with a plain split for any content, window and chunk size, cold and with a warm index', async () => {
    const line = fc.stringMatching(/^[a-z é\r]{0,30}$/);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 60 }),
        fc.boolean(),
        fc.nat(70),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 3 }),
        async (lines, trailingNewline, startLine, maxLines, chunkPower, stepsPerRead) => {
          const text = lines.join('\n') + (trailingNewline && lines.length > 0 ? '\n' : '');
          const path = join(dir, `f${run++}.txt`);
          await writeFile(path, text);
          const index: LineIndex = { version: 'v', chunkBytes: 2 ** (chunkPower + 2), newlinesBefore: [0] };
          const all = expectedLines(text);
          for (const attempt of ['cold', 'warm']) {
            const window = await readLineWindow(path, {
              startLine,
              maxLines,
              maxLineChars: 25,
              maxChars: Number.POSITIVE_INFINITY,
              countAllLines: true,
              index,
              readBytes: index.chunkBytes * stepsPerRead,
            });
            const expected = all
              .slice(startLine, startLine + maxLines)
              .map((value) => (value.length > 25 ? `${value.slice(0, 25)}… [line truncated]` : value));
            expect(window.lines, attempt).toEqual(expected);
            expect(window.totalLines, attempt).toBe(all.length);
          }
        },
      ),
      { numRuns: Number(process.env['EFFERENT_FUZZ_RUNS'] ?? 150) },
    );
  });
});
