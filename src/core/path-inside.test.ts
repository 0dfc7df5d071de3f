import { isAbsolute, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInsideDirectory } from './path-inside.ts';

/** The definition: what path.relative says of the two paths (only a first segment `..` leaves). */
function byRelative(path: string, directory: string): boolean {
  const rel = relative(directory, path);
  return rel === '' || (rel.split('/')[0] !== '..' && !isAbsolute(rel));
}

const segment = fc.constantFrom('a', 'b', 'ab', '.', '..', '..x', '...', 'x..', '', 'proj', 'proj2', ' ');
const path = fc
  .tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }), fc.boolean())
  .map(([absolute, parts, trailing]) => `${absolute ? '/' : ''}${parts.join('/')}${trailing ? '/' : ''}`);

describe('isInsideDirectory', () => {
  it('answers as path.relative does, for clean and unclean spellings alike', () => {
    fc.assert(
      fc.property(path, path, (candidate, directory) => {
        expect(isInsideDirectory(candidate, directory)).toBe(byRelative(candidate, directory));
      }),
      { numRuns: 20_000 },
    );
  });

  it('compares whole segments', () => {
    expect(isInsideDirectory('/srv/proj2/x', '/srv/proj')).toBe(false);
    expect(isInsideDirectory('/srv/proj/x', '/srv/proj')).toBe(true);
    expect(isInsideDirectory('/srv/proj', '/srv/proj')).toBe(true);
    expect(isInsideDirectory('/srv/proj/../etc', '/srv/proj')).toBe(false);
    expect(isInsideDirectory('/etc', '/')).toBe(true);
  });

  it('counts names that start with two dots as names (`go test ./...`, `..config`)', () => {
    expect(isInsideDirectory('/srv/proj/...', '/srv/proj')).toBe(true);
    expect(isInsideDirectory('/srv/proj/..config/x', '/srv/proj')).toBe(true);
    expect(isInsideDirectory('proj/...', 'proj')).toBe(true);
    expect(isInsideDirectory('/srv/proj/../x', '/srv/proj')).toBe(false);
    expect(isInsideDirectory('/srv/x', '/srv/proj')).toBe(false);
  });
});
