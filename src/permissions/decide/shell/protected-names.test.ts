import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayBeProtectedPath, protectedEntryReason } from '../../../core/protected-paths.ts';
import { wordPieces } from './protected-names.ts';

/** The two searches the one helper replaced, kept here as the definition it must cover. */
function earlierPieces(word: string): string[] {
  const pieces: string[] = [];
  // The broad step: brace expansion, then parts between `=`, `,`, `:`, less a short option's two characters.
  const broad = (text: string, budget: { left: number }) => {
    const group = text.includes('{') ? /\{([^{}]*,[^{}]*)\}/.exec(text) : null;
    if (group) {
      const [whole, inside = ''] = group;
      for (const choice of inside.split(',')) {
        if (budget.left-- <= 0) break;
        broad(`${text.slice(0, group.index)}${choice}${text.slice(group.index + whole.length)}`, budget);
      }
    }
    for (const part of text.split(/[=,:]/))
      pieces.push(/^-[A-Za-z]./.test(part) && !part.startsWith('--') ? part.slice(2) : part);
  };
  broad(word, { left: 64 });
  // The step before allow rules: value after `=` split at commas, every letter of a short cluster.
  if (word.startsWith('-') && word.length >= 3) {
    const equals = word.indexOf('=');
    if (equals !== -1) pieces.push(...word.slice(equals + 1).split(','));
    if (!word.startsWith('--')) {
      for (let at = 2; at < word.length; at++) {
        pieces.push(word.slice(at));
        if (!/[A-Za-z0-9]/.test(word.charAt(at - 1))) break;
      }
      if (word.includes(',')) pieces.push(...word.split(','));
    }
  }
  return pieces;
}

const parts = [
  '-',
  '--',
  '-o',
  '-xo',
  'o',
  '=',
  ',',
  ':',
  '.envrc',
  '.git/config',
  '{rc,}',
  '.env',
  'a',
  'x.ts',
  '/',
];

describe('wordPieces', () => {
  it('holds every piece either earlier search judged, on generated words', () => {
    const word = fc
      .array(fc.constantFrom(...parts), { minLength: 1, maxLength: 7 })
      .map((list) => list.join(''));
    fc.assert(
      fc.property(word, (text) => {
        const pieces = new Set(wordPieces(text));
        for (const piece of earlierPieces(text)) expect(pieces.has(piece), `${text}: ${piece}`).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('splits an everyday word into nothing more than itself', () => {
    for (const word of ['build', 'src/app.ts', '--release', 'README.md', '../x', 'TODO'])
      expect(wordPieces(word)).toEqual([word]);
  });
});

describe('mayBeProtectedPath', () => {
  const segments = [
    'src',
    '.git',
    'hooks',
    'config',
    '.claude',
    'settings.json',
    'CLAUDE.md',
    'rust-toolchain',
    '.GIT',
    '.git.',
    'CLAUDE.md ',
    '.gi\u200bt',
    'site-packages',
    'evil.pth',
    'etc',
    'efferent',
    '.envrc',
    '.github',
    'instructions',
    'x.ts',
    '..',
    '.',
    'mise.toml',
    '.vscode',
    'tasks.json',
    '',
  ];
  it('is false only where the full check finds nothing, on generated paths', () => {
    const path = fc
      .tuple(fc.boolean(), fc.array(fc.constantFrom(...segments), { minLength: 1, maxLength: 6 }))
      .map(([absolute, list]) => `${absolute ? '/' : ''}${list.join('/')}`);
    fc.assert(
      fc.property(path, (text) => {
        if (protectedEntryReason(text) !== undefined) expect(mayBeProtectedPath(text), text).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it('passes over everyday paths', () => {
    for (const path of ['/srv/proj/src/app.ts', 'src/app.ts', 'README.md', '/srv/proj/package.json', 'build'])
      expect(mayBeProtectedPath(path), path).toBe(false);
  });
});
