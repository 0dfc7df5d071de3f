import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * The value of a file-reading short option written against its letter (class
 * `option-file-values`, docs/decisions/security-option-file-values.md). `date -f ~/.ssh/id_rsa`
 * asked, as every separate word is a possible path, but `date -f~/.ssh/id_rsa` was allowed in
 * default mode and prints every line of the key (`date: invalid date '…'`); so were `file -m…`,
 * `git blame -S…`, `grep -vf…`, `git config -f…`, `du -X…` and more, clustered or not.
 */

const place = decisionPlace('efferent-option-values-', (made) => {
  mkdirSync(join(made.home, '.ssh'));
  writeFileSync(join(made.home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-LINE\n');
  writeFileSync(join(made.project, 'README.md'), 'hello\n');
  writeFileSync(join(made.project, 'patterns.txt'), 'hello\n');
  writeFileSync(join(made.project, '.env'), 'API_KEY=x\n');
});

/** Program words before the option, the reading letter, flags that may share its cluster, words after. */
const shapes: Array<{ before: string; letter: string; flags: string[]; after: string }> = [
  { before: 'grep', letter: 'f', flags: ['v', 'h', 'Hn', 'ri', 'F'], after: 'README.md' },
  { before: 'egrep', letter: 'f', flags: ['v', 'c'], after: 'README.md' },
  { before: 'fgrep', letter: 'f', flags: ['x'], after: 'README.md' },
  { before: 'rg', letter: 'f', flags: ['F', 'i', 'n'], after: '.' },
  { before: 'diff', letter: 'X', flags: ['r', 'u', 'q'], after: 'README.md patterns.txt' },
  { before: 'du', letter: 'X', flags: ['a', 's', 'h'], after: '.' },
  { before: 'file', letter: 'm', flags: ['b', 'L', 'z'], after: 'README.md' },
  { before: 'date', letter: 'f', flags: ['u', 'R'], after: '' },
  { before: 'date', letter: 'r', flags: ['u'], after: '' },
  { before: 'git diff', letter: 'O', flags: ['R'], after: '' },
  { before: 'git show', letter: 'O', flags: [], after: 'HEAD' },
  { before: 'git log -p', letter: 'O', flags: [], after: '-1' },
  { before: 'git grep', letter: 'f', flags: ['F', 'i', 'n'], after: '' },
  { before: 'git ls-files -o', letter: 'X', flags: ['i'], after: '' },
  { before: 'git blame', letter: 'S', flags: ['s'], after: 'README.md' },
  { before: 'git config', letter: 'f', flags: [], after: '-l' },
];

/** Where the value points: outside through home, absolute, upwards; the denied file inside. */
const targets = (): string[] => [
  '$HOME/.ssh/id_rsa',
  join(place.home, '.ssh', 'id_rsa'),
  '../home/.ssh/id_rsa',
  '.env',
];

const spellings = (letter: string, flags: readonly string[], target: string): string[] => [
  `-${letter}${target}`,
  ...flags.map((flag) => `-${flag}${letter}${target}`),
];

describe('option file values: an attached value of a file-reading option is a read (generated)', () => {
  it('date -f and file -m print the file they read (the attack is real)', () => {
    // bash leaves `~` inside a word alone; `$HOME` and absolute paths reach the key.
    expect(place.bash('date -f$HOME/.ssh/id_rsa')).toContain('PRIVATE-KEY-LINE');
    expect(place.bash('file -m$HOME/.ssh/id_rsa README.md')).toContain('PRIVATE-KEY-LINE');
    expect(place.bash('date -uf../home/.ssh/id_rsa')).toContain('PRIVATE-KEY-LINE');
  });

  it('never allows an attached or clustered value that names a file outside or a denied one', async () => {
    let count = 0;
    for (const shape of shapes)
      for (const target of targets())
        for (const option of spellings(shape.letter, shape.flags, target)) {
          const command = [shape.before, option, shape.after].filter((word) => word !== '').join(' ');
          const result = await place.decide(command, { deny: ['Read(./.env)'] }, 'default');
          expect(result.behavior, command).not.toBe('allow');
          expect(result.message, command).toMatch(/\.$/);
          count++;
        }
    const perTarget = shapes.reduce((sum, shape) => sum + 1 + shape.flags.length, 0);
    expect(count).toBe(perTarget * targets().length);
  });

  it('reads every file of a magic list, however it is given', async () => {
    for (const command of [
      'file -mpatterns.txt:~/.ssh/id_rsa README.md',
      'file -m patterns.txt:~/.ssh/id_rsa README.md',
      'file --magic-file=patterns.txt:../home/.ssh/id_rsa README.md',
      'file --magic-file patterns.txt:../home/.ssh/id_rsa README.md',
    ])
      expect((await place.decide(command, {}, 'default')).behavior, command).not.toBe('allow');
  });

  it("reads the value of Go's single-dash long options written with =", async () => {
    let count = 0;
    for (const option of ['-modfile', '--modfile', '-overlay', '-pgo', '-C'])
      for (const target of targets())
        for (const [rule, command] of [
          ['Bash(go test:*)', 'go test'],
          ['Bash(go build:*)', 'go build'],
          ['Bash(go list:*)', 'go list'],
        ] as const) {
          const line = `${command} ${option}=${target} ./...`;
          const result = await place.decide(line, { allow: [rule], deny: ['Read(./.env)'] }, 'default');
          expect(result.behavior, line).not.toBe('allow');
          count++;
        }
    expect(count).toBe(5 * targets().length * 3);
    for (const line of ['go test -modfile=go.test.mod ./...', 'go test -run=TestX ./...'])
      expect((await place.decide(line, { allow: ['Bash(go test:*)'] }, 'default')).behavior, line).toBe(
        'allow',
      );
  });

  it('keeps everyday spellings allowed: files inside the project, and values that are no file', async () => {
    for (const command of [
      'grep -fpatterns.txt README.md',
      'grep -vfpatterns.txt README.md',
      'rg -Fipatterns.txt -fpatterns.txt .',
      'du -sXpatterns.txt .',
      'diff -rXpatterns.txt README.md patterns.txt',
      'date -rREADME.md',
      'cut -d/ -f1 README.md',
      'sort -t/ -k2 README.md',
      'grep -e/api/ README.md',
      'grep -ef/api README.md',
      'grep -nA2 hello README.md',
    ]) {
      const result = await place.decide(command, {}, 'default');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
    }
  });
});
