import { spawnSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linesOf, NewestFirst, newestFirst } from './newest-first.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'efferent-newest-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('NewestFirst', () => {
  it('keeps only the newest while paths stream in, ties by path, missing files last', async () => {
    const names = Array.from({ length: 700 }, (_, index) => `f${String(index).padStart(3, '0')}`);
    // Many ties: 50 distinct times for 700 files, given in a scrambled order.
    const ageOf = (index: number) => (index * 37) % 50;
    await Promise.all(
      names.map(async (name, index) => {
        await writeFile(join(root, name), '');
        const time = new Date(Date.UTC(2026, 0, 1) - ageOf(index) * 1000);
        await utimes(join(root, name), time, time);
      }),
    );
    const expected = names
      .map((name, index) => ({ name, age: ageOf(index) }))
      .sort((a, b) => a.age - b.age || (a.name < b.name ? -1 : 1))
      .map(({ name }) => name);
    const scrambled = [...names].sort(
      (a, b) => ((Number(a.slice(1)) * 7919) % 701) - ((Number(b.slice(1)) * 7919) % 701),
    );
    const top = new NewestFirst(root, 25);
    for (const name of [...scrambled, 'missing']) top.add(name);
    expect(top.ordered()).toEqual(expected.slice(0, 25));
    const all = await newestFirst(root, [...scrambled, 'missing']);
    expect(all).toEqual([...expected, 'missing']);
    expect(await newestFirst(root, [join(root, 'f001'), 'f000'], undefined, 1)).toHaveLength(1);
  });
});

describe('NewestFirst with stat threads', () => {
  it('gives exactly the global order by mtime (ties by path) for any times, batch sizes and limits', async () => {
    // Files in several directories, whose listing order has nothing to do with their times; more than
    // a page holds (2 × limit + 256), so the early dropping of older paths is exercised too.
    const names = Array.from({ length: 400 }, (_, index) => `d${index % 7}/f${(index * 53) % 400}`);
    for (let directory = 0; directory < 7; directory++) await mkdir(join(root, `d${directory}`));
    await Promise.all(names.map((name) => writeFile(join(root, name), '')));
    const epoch = Date.UTC(2026, 0, 1) / 1000;
    await fc.assert(
      fc.asyncProperty(
        // Few distinct seconds, so many ties; a permutation of the names plus missing paths.
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: names.length, maxLength: names.length }),
        fc.shuffledSubarray([...names, 'gone', 'd0/gone'], { minLength: 1 }),
        fc.integer({ min: 1, max: 300 }),
        fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
        async (ages, listed, batchSize, limit) => {
          names.forEach((name, index) => {
            const time = epoch - (ages[index] as number);
            utimesSync(join(root, name), time, time);
          });
          const ageOf = (name: string) => {
            const index = names.indexOf(name);
            return index === -1 ? Number.POSITIVE_INFINITY : (ages[index] as number);
          };
          const expected = [...listed]
            .sort((a, b) => ageOf(a) - ageOf(b) || (a < b ? -1 : a > b ? 1 : 0))
            .slice(0, limit ?? listed.length);
          const threaded = new NewestFirst(root, limit, batchSize);
          for (const name of listed) threaded.enqueue(name);
          await threaded.settled();
          expect(threaded.ordered()).toEqual(expected);
          // The same listing as ripgrep's output, cut into pieces of whole lines (about batchSize / 8
          // lines each, some with a leading ./), stat'ed on the threads, which send back only each
          // piece's newest.
          const fromLines = new NewestFirst(root, limit);
          const lines = listed.map((name, index) => (index % 3 === 0 ? `./${name}\n` : `${name}\n`));
          const perPiece = Math.max(1, Math.ceil(batchSize / 8));
          for (let start = 0; start < lines.length; start += perPiece)
            fromLines.enqueueLines(Buffer.from(lines.slice(start, start + perPiece).join('')));
          await fromLines.settled();
          expect(fromLines.ordered()).toEqual(expected);
          const inline = new NewestFirst(root, limit);
          for (const name of listed) inline.add(name);
          expect(inline.ordered()).toEqual(expected);
          expect(linesOf(Buffer.from(lines.join('')))).toEqual(listed);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('stat threads', () => {
  it('never keep a process alive: a script that used them ends on its own', async () => {
    await writeFile(join(root, 'old'), '');
    await utimes(join(root, 'old'), 1_000, 1_000);
    await writeFile(join(root, 'new'), '');
    const module = pathToFileURL(resolve(import.meta.dirname, 'newest-first.ts')).href;
    const script = `import { NewestFirst } from ${JSON.stringify(module)};
const order = new NewestFirst(${JSON.stringify(root)});
for (const name of ['old', 'new']) order.enqueue(name);
await order.settled();
console.log(order.ordered().join(','));`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: resolve(import.meta.dirname, '../../..'),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.signal, 'the process had to be killed').toBeNull();
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('new,old');
  });
});
