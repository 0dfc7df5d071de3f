import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NewestFirst, newestFirst } from './newest-first.ts';

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
