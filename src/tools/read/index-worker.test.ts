import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTempWorkspace, type TempWorkspace } from '../../testing/index.ts';
import { makeTempProject, runTool } from '../shared/test-support.ts';
import { completeLineIndexInBackground, pendingLineIndexBuild } from './index-worker.ts';
import { fileVersion, type LineIndex, lineIndexFor } from './line-index.ts';
import { prescanMinBytes, readLineWindow, windowChunkBytes } from './line-window.ts';
import { type ReadOutput, ReadTool } from './read.ts';

let workspace: TempWorkspace | undefined;
afterAll(() => workspace?.dispose());

/** Newlines before each step boundary, counted the slow, obvious way. */
function expectedBoundaries(bytes: Buffer, step: number): number[] {
  const result: number[] = [];
  let newlines = 0;
  for (let index = 0; index <= bytes.length; index++) {
    if (index % step === 0) result.push(newlines);
    if (bytes[index] === 10) newlines++;
  }
  return result;
}

function numbered(count: number, last = ''): Buffer {
  return Buffer.from(
    `${Array.from({ length: count }, (_, line) => `line ${line + 1} ${'x'.repeat(line % 13)}`).join('\n')}${last}`,
  );
}

describe('completeLineIndexInBackground', () => {
  it('indexes the rest of the file in a worker, from where the index stopped', async () => {
    workspace ??= await createTempWorkspace();
    for (const [name, bytes] of [
      ['ends-with-newline.txt', numbered(20_000, '\n')],
      ['no-final-newline.txt', numbered(20_000)],
    ] as const) {
      const path = join(workspace.dir, name);
      writeFileSync(path, bytes);
      const stats = statSync(path);
      const step = 4096;
      const expected = expectedBoundaries(bytes, step);
      // A first read left the first few boundaries known.
      const index: LineIndex = { version: 'v', chunkBytes: step, newlinesBefore: expected.slice(0, 3) };
      completeLineIndexInBackground({ path, size: stats.size, mtimeMs: stats.mtimeMs }, index, 0);
      await pendingLineIndexBuild(index);
      expect(index.newlinesBefore).toEqual(expected);
      expect(index.totalLines).toBe(20_000);
      expect(pendingLineIndexBuild(index)).toBeUndefined();
      const window = await readLineWindow(path, {
        startLine: 19_990,
        maxLines: 5,
        maxLineChars: 1000,
        maxChars: 1e6,
        countAllLines: false,
        index,
      });
      expect(window.lines).toEqual(
        [19_991, 19_992, 19_993, 19_994, 19_995].map((line) => `line ${line} ${'x'.repeat((line - 1) % 13)}`),
      );
    }
  });

  it('leaves the index partial when the file changed since the read that started it', async () => {
    workspace ??= await createTempWorkspace();
    const path = join(workspace.dir, 'changed.txt');
    writeFileSync(path, numbered(5000, '\n'));
    const stats = statSync(path);
    utimesSync(path, new Date(stats.mtimeMs + 5000), new Date(stats.mtimeMs + 5000));
    const index: LineIndex = { version: 'v', chunkBytes: 1024, newlinesBefore: [0] };
    completeLineIndexInBackground({ path, size: stats.size, mtimeMs: stats.mtimeMs }, index, 0);
    await pendingLineIndexBuild(index);
    expect(index.newlinesBefore).toEqual([0]);
    expect(index.totalLines).toBeUndefined();
  });
});

describe('Read of a large file', () => {
  it('indexes the whole file after the first read, so a window at the end needs no scan', async () => {
    const project = await makeTempProject();
    try {
      // Lines of 17 bytes, just past the size where Read starts indexing in the background, the last
      // ones numbered.
      const filler = Math.ceil((prescanMinBytes + 1) / 17);
      const lines = filler + 3;
      const path = join(project.root, 'big.log');
      const tail = Buffer.from(
        `${[filler + 1, filler + 2, filler + 3].map((line) => `${line} entry`).join('\n')}\n`,
      );
      const text = Buffer.concat([Buffer.alloc(filler * 17, 'filler line 1234\n'), tail]);
      writeFileSync(path, text);
      const read = (input: Record<string, unknown>) =>
        runTool<ReadOutput>(ReadTool, { file_path: path, ...input }, project.context);
      const first = await read({ offset: 1, limit: 3 });
      expect(first.ok && first.text).toContain('filler line 1234');
      const index = lineIndexFor(
        project.context.run.readFileState,
        path,
        fileVersion(statSync(path)),
        windowChunkBytes,
      );
      await pendingLineIndexBuild(index);
      expect(index.totalLines).toBe(lines);
      expect(index.newlinesBefore.length).toBe(Math.floor(text.length / windowChunkBytes) + 1);
      const last = await read({ offset: lines - 1, limit: 5 });
      expect(last.ok && last.text).toMatch(
        new RegExp(`${lines - 1}\\t${lines - 1} entry\\n\\s*${lines}\\t${lines} entry`),
      );
    } finally {
      await project.cleanup();
    }
  }, 120_000);
});
