import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparePaths, PathOrderedLines } from './path-order.ts';

/** The order `rg --sort path` and the JS walker visit files in: level by level, each by name. */
function segmentOrder(left: string, right: string): number {
  const a = left.split('/');
  const b = right.split('/');
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const x = a[index] as string;
    const y = b[index] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Output lines for one file as ripgrep prints them with --null and line numbers. */
function fileLines(path: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${path}\0${index + 1}:hit`);
}

describe('comparePaths', () => {
  it('orders directory by directory, a name before the longer names it begins', () => {
    const paths = ['a-c', 'a/b', 'a.d/x', 'a/b/c', 'ab', 'a'];
    expect([...paths].sort(comparePaths)).toEqual(['a', 'a/b', 'a/b/c', 'a-c', 'a.d/x', 'ab']);
  });

  it('agrees with comparing segment by segment', () => {
    const segment = fc.stringMatching(/^[a-c.\-_]{1,3}$/);
    const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(path, path, (left, right) => {
        expect(Math.sign(comparePaths(left, right))).toBe(Math.sign(segmentOrder(left, right)));
      }),
    );
  });
});

describe('PathOrderedLines', () => {
  it('hands files on in path order with separators between files only when asked', () => {
    const collector = new PathOrderedLines({ offset: 0, limit: 0, maxChars: 1 << 20 });
    for (const line of [...fileLines('b', 1), '--', ...fileLines('a/z', 1), '--', ...fileLines('a', 2)]) {
      collector.add(line);
    }
    const plain: string[] = [];
    collector.drain((line) => plain.push(line) > 0, false);
    expect(plain).toEqual(['a\x001:hit', 'a\x002:hit', 'a/z\x001:hit', 'b\x001:hit']);
    const separated: string[] = [];
    collector.drain((line) => separated.push(line) > 0, true);
    expect(separated).toEqual(['a\x001:hit', 'a\x002:hit', '--', 'a/z\x001:hit', '--', 'b\x001:hit']);
  });

  it('keeps a separator between two groups of the same file', () => {
    const collector = new PathOrderedLines({ offset: 0, limit: 0, maxChars: 1 << 20 });
    for (const line of ['b\x001:x', '--', 'b\x009:x', '--', 'a\x003:x']) collector.add(line);
    const out: string[] = [];
    collector.drain((line) => out.push(line) > 0, true);
    expect(out).toEqual(['a\x003:x', '--', 'b\x001:x', '--', 'b\x009:x']);
  });

  it('holds only the files that can reach the page, and still returns the right page', () => {
    const paths = Array.from(
      { length: 5000 },
      (_, index) => `d${index % 7}/f${String(index).padStart(5, '0')}`,
    );
    const expected = [...paths].sort(comparePaths).flatMap((path) => fileLines(path, 3));
    const collector = new PathOrderedLines({ offset: 30, limit: 20, maxChars: 1 << 20 });
    let mostHeld = 0;
    // Worst case for the bound: the files arrive in reverse order.
    for (const path of [...paths].reverse()) {
      for (const line of fileLines(path, 3)) collector.add(line);
      mostHeld = Math.max(mostHeld, collector.heldLines);
    }
    expect(mostHeld).toBeLessThan(2 * (30 + 20) + 1024 + 3);
    const out: string[] = [];
    collector.drain((line) => out.push(line) < 50, false);
    expect(out).toEqual(expected.slice(0, 50));
  });

  it('bounds an unlimited page by characters', () => {
    const collector = new PathOrderedLines({ offset: 0, limit: 0, maxChars: 1000 });
    for (let index = 0; index < 2000; index++)
      collector.add(`f${String(2000 - index).padStart(4, '0')}\0${index}:hit`);
    expect(collector.heldLines).toBeLessThan(400);
    const out: string[] = [];
    collector.drain((line) => out.push(line) > 0, false);
    expect(out[0]).toBe('f0001\x001999:hit');
  });

  it('leaves out files the deny rules hide', () => {
    const collector = new PathOrderedLines({ offset: 0, limit: 0, maxChars: 1 << 20 }, (path) =>
      path.startsWith('secret'),
    );
    for (const line of ['secret/k\x001:x', 'public\x001:x']) collector.add(line);
    const out: string[] = [];
    collector.drain((line) => out.push(line) > 0, false);
    expect(out).toEqual(['public\x001:x']);
  });
});
