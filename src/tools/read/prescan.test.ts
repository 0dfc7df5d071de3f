import { writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createTempWorkspace, type TempWorkspace } from '../../testing/index.ts';
import { type LineIndex, nearestStart } from './line-index.ts';
import { readLineWindow } from './line-window.ts';
import { prescanLineIndex } from './prescan.ts';

let workspace: TempWorkspace | undefined;
afterAll(() => workspace?.dispose());

/** Newlines before each step boundary, counted the slow, obvious way. */
function expectedBoundaries(text: string, step: number): number[] {
  const bytes = Buffer.from(text);
  const result: number[] = [];
  let newlines = 0;
  for (let index = 0; index <= bytes.length; index++) {
    if (index % step === 0) result.push(newlines);
    if (bytes[index] === 10) newlines++;
  }
  return result;
}

describe('prescanLineIndex', () => {
  it('records the same boundary counts as a plain scan, however reads interleave', async () => {
    workspace ??= await createTempWorkspace();
    const dir = workspace.dir;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 400 }),
        async (lines, inFlight, startLine) => {
          const text = lines.join('\n');
          const path = join(dir, 'scan.txt');
          writeFileSync(path, text);
          const step = 64;
          const index: LineIndex = { version: 'v', chunkBytes: step, newlinesBefore: [0] };
          const handle = await open(path, 'r');
          try {
            await prescanLineIndex(handle, { index, startLine, chunkBytes: step * 4, inFlight });
          } finally {
            await handle.close();
          }
          const expected = expectedBoundaries(text, step);
          expect(index.newlinesBefore).toEqual(expected.slice(0, index.newlinesBefore.length));
          // It reached the step holding the wanted line (or the end of the file).
          const reached = index.newlinesBefore.at(-1) ?? 0;
          const endReached = index.newlinesBefore.length >= Math.floor(Buffer.byteLength(text) / step);
          expect(reached < startLine ? endReached : true).toBe(true);
          // And the window read from the index gives exactly the plain answer.
          const window = await readLineWindow(path, {
            startLine,
            maxLines: 3,
            maxLineChars: 1000,
            maxChars: 100_000,
            countAllLines: false,
            index,
          });
          // A final newline ends the last line rather than starting an empty one; an empty file has none.
          const fileLines = text === '' ? [] : (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
          expect(window.lines).toEqual(fileLines.slice(startLine, startLine + 3));
          expect(nearestStart(index, startLine).newlines).toBeLessThanOrEqual(startLine);
        },
      ),
      {
        numRuns: 150,
        // Edge cases every run covers: an empty file, a final newline, a line past the end.
        examples: [
          [[''], 1, 0],
          [['a', ''], 2, 1],
          [['a', 'b'], 3, 5],
        ],
      },
    );
  });
});
