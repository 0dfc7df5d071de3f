import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A pattern a command writes through is every file it expands to (class `pattern-writes`,
 * docs/decisions/security-pattern-writes.md). The analyser dropped pattern words from a command's
 * write targets, so acceptEdits allowed `sed -i … .e*` (rewrites .envrc), `touch .pdb?c`,
 * `cp x .hus?y/pre-commit` (replaces a git hook) and `sed -i … .[a-z]*rc`, and a write deny rule never
 * saw `sed -i … secre?/key.txt`. Patterns are now expanded on disk and each match judged as a write.
 */

const protectedFiles = [
  '.envrc',
  '.pdbrc',
  '.husky/pre-commit',
  '.git/hooks/pre-commit',
  '.vscode/settings.json',
  'CLAUDE.md',
  '.npmrc',
  'mise.toml',
];

const place = decisionPlace('efferent-pattern-writes-', ({ project }) => {
  for (const file of [...protectedFiles, 'secret/key.txt', 'src/app.ts', 'src/util.ts', 'build/a.o']) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), 'a\n');
  }
});

/** Patterns that match `path` and nothing harmless beside it in this project, built from its spelling. */
function spellings(path: string): string[] {
  const cut = path.lastIndexOf('/');
  const directory = cut === -1 ? '' : `${path.slice(0, cut)}/`;
  const name = path.slice(cut + 1);
  const first = path.split('/')[0] ?? path;
  const rest = path.slice(first.length);
  return [
    `${directory}${name.slice(0, 3)}*`,
    `${directory}${name.slice(0, -1)}?`,
    `${directory}${name.slice(0, 1)}[${name.slice(1, 2)}]${name.slice(2)}`,
    `./${directory}${name.slice(0, -2)}*`,
    `${first.slice(0, 2)}*${rest}`,
    `${first.slice(0, -1)}?${rest}`,
  ];
}

const writers = [
  (pattern: string) => `sed -i s/a/b/ ${pattern}`,
  (pattern: string) => `touch ${pattern}`,
  (pattern: string) => `cp src/app.ts ${pattern}`,
  (pattern: string) => `ln -sf src/app.ts ${pattern}`,
  (pattern: string) => `mv src/util.ts ${pattern}`,
];

describe('pattern writes: each file a pattern expands to is judged as a write (generated)', () => {
  it('real bash expands the pattern to the protected file (the attack is real)', () => {
    expect(place.bash('echo .e*; echo .h*/pre-commit')).toContain('.envrc');
    expect(place.bash('echo .h*/pre-commit')).toContain('.husky/pre-commit');
  });

  it('never allows a write whose pattern reaches a protected file, in acceptEdits or under a rule', async () => {
    let count = 0;
    for (const file of protectedFiles)
      for (const pattern of spellings(file)) {
        expect(place.bash(`printf '%s\\n' ${pattern}`), pattern).toContain(file);
        for (const write of writers) {
          const command = write(pattern);
          const accept = await place.decide(command, {}, 'acceptEdits');
          expect(accept.behavior, `acceptEdits ${command}`).not.toBe('allow');
          expect(accept.message, command).toMatch(/\.$/);
          const rule = await place.decide(
            command,
            { allow: [`Bash(${command.split(' ')[0]} *)`] },
            'default',
          );
          expect(rule.behavior, `rule ${command}`).not.toBe('allow');
          count += 2;
        }
      }
    expect(count).toBe(protectedFiles.length * 6 * writers.length * 2);
  });

  it('a write deny rule meets the files a pattern expands to', async () => {
    for (const pattern of ['secre?/key.txt', 'sec*/key.txt', 'secret/k*', '[s]ecret/key.txt']) {
      const result = await place.decide(
        `sed -i s/a/b/ ${pattern}`,
        { deny: ['Edit(./secret/**)'] },
        'acceptEdits',
      );
      expect(result.behavior, pattern).toBe('deny');
    }
  });

  it('keeps pattern writes to ordinary files allowed in acceptEdits', async () => {
    for (const command of [
      'sed -i s/a/b/ src/*.ts',
      'touch src/*',
      'rm build/*.o',
      'touch src/nothing-matches*',
      'cp src/app.ts build/',
    ]) {
      expect((await place.decide(command, {}, 'acceptEdits')).behavior, command).toBe('allow');
    }
  });
});
