import { relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { relativeBelow } from './path-pattern.ts';

/** Absolute paths from a few names, with `.`, `..`, empty segments and trailing slashes mixed in. */
const segment = fc.constantFrom('a', 'b', 'ab', '.env', '..x', 'x..', '.', '..', '', 'é', 'A');
const absolute = fc.array(segment, { maxLength: 6 }).map((segments) => `/${segments.join('/')}`);

describe('relativeBelow', () => {
  it('is path.relative for every pair of absolute paths', () => {
    fc.assert(
      fc.property(absolute, absolute, (base, path) => {
        expect(relativeBelow(base, path)).toBe(relative(base, path));
      }),
      { numRuns: 20_000 },
    );
  });

  it('is path.relative when one path is below the other', () => {
    fc.assert(
      fc.property(absolute, fc.array(segment, { maxLength: 4 }), (base, below) => {
        const path = `${base}/${below.join('/')}`;
        expect(relativeBelow(base, path)).toBe(relative(base, path));
        expect(relativeBelow(path, base)).toBe(relative(path, base));
      }),
      { numRuns: 20_000 },
    );
  });

  it('cuts at a segment boundary only', () => {
    expect(relativeBelow('/srv/proj', '/srv/proj2/a')).toBe('../proj2/a');
    expect(relativeBelow('/srv/proj', '/srv/proj/a/b')).toBe('a/b');
    expect(relativeBelow('/', '/a/b')).toBe('a/b');
    expect(relativeBelow('/srv/proj', '/srv/proj')).toBe('');
  });
});
