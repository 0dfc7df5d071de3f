import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { protectedPathInText, protectedPiece } from './protected-names.ts';

/** The definition: every word between blanks, quotes and operators, judged in order. */
function bySplitting(command: string) {
  for (const token of command.split(/[\s;&|<>()`"'\\]+/)) {
    if (!token.includes('.')) continue;
    const named = protectedPiece(token);
    if (named) return named;
  }
  return undefined;
}

const pieces = [
  '.envrc',
  '.claude/settings.json',
  'CLAUDE.md',
  '.git/hooks/pre-commit',
  'a.txt',
  'src/x.ts',
  '-o.bashrc',
  'x=.envrc',
  '.env{rc,}',
  '.',
  '..',
  'echo',
  '0123',
];
const separators = [' ', '\t', '\n', ';', '&&', '|', '<', '>', '(', ')', '`', '"', "'", '\\', '\u00a0', ''];

describe('protectedPathInText', () => {
  it('finds what splitting the text into words finds, on generated commands', () => {
    const command = fc
      .array(fc.tuple(fc.constantFrom(...pieces), fc.constantFrom(...separators)), { maxLength: 10 })
      .map((parts) => parts.map(([piece, separator]) => piece + separator).join(''));
    fc.assert(
      fc.property(command, (text) => {
        expect(protectedPathInText(text)).toEqual(bySplitting(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a megabyte without dots at once', () => {
    const chain = `${'echo 0123456789 && '.repeat(55_000)}true`;
    expect(protectedPathInText(chain)).toBeUndefined();
    expect(protectedPathInText(`${chain} > .envrc`)?.piece).toBe('.envrc');
  });
});
