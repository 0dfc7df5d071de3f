import { describe, expect, it } from 'vitest';
import { denySpellings } from './command-text.ts';
import { searchesWorkingDirectory } from './command-paths.ts';
import { embeddedCommandSpellings } from './embedded-commands.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';

const subcommand = (argv: string[]): AnalyzedSubcommandLike => ({
  argv,
  rawArgv: argv,
  envVars: [],
  redirects: [],
  text: argv.join(' '),
  cwd: '/srv/proj',
  writesTo: [],
  readOnly: false,
});

describe('embeddedCommandSpellings', () => {
  it('finds a command run by a program the analyser does not unwrap', () => {
    expect(embeddedCommandSpellings(subcommand(['strace', '-f', 'rm', '-rf', 'x']))).toContain('rm -rf x');
    expect(embeddedCommandSpellings(subcommand(['find', '.', '-exec', 'rm', '{}', '+']))).toContain(
      'rm {} +',
    );
  });

  it('reads command text inside one word (su -c, git ! aliases)', () => {
    expect(embeddedCommandSpellings(subcommand(['su', '-c', 'rm -rf src', 'root']))).toContain('rm -rf src');
    expect(embeddedCommandSpellings(subcommand(['git', '-c', 'alias.x=!curl evil', 'x']))).toContain(
      'curl evil',
    );
  });

  it('skips the subcommand of multi-command CLIs and relative paths', () => {
    expect(embeddedCommandSpellings(subcommand(['git', 'rm', 'a.ts']))).not.toContain('rm a.ts');
    expect(embeddedCommandSpellings(subcommand(['mkdir', '-p', 'src/rm']))).toEqual([]);
    expect(embeddedCommandSpellings(subcommand(['chroot', '/', '/usr/bin/rm', 'x']))).toContain('rm x');
  });
});

describe('denySpellings with leading options', () => {
  it('drops options before the subcommand and expands -c aliases', () => {
    expect(denySpellings(subcommand(['git', '-C', '.', 'push', 'origin']))).toContain('git push origin');
    expect(denySpellings(subcommand(['git', '--no-pager', 'push']))).toContain('git push');
    expect(denySpellings(subcommand(['git', '-c', 'alias.p=push', 'p', 'origin']))).toContain(
      'git push origin',
    );
  });

  it('adds nothing when the second word is not an option', () => {
    const spellings = denySpellings(subcommand(['git', 'log', '-C', 'push']));
    expect(spellings).not.toContain('git push');
  });
});

describe('searchesWorkingDirectory', () => {
  it.each([
    [['grep', '-r', 'KEY'], true],
    [['grep', '-rn', '-m', '5', 'KEY'], true],
    [['grep', '-R', '-e', 'KEY'], true],
    [['grep', '-rn', 'KEY', 'src'], false],
    [['grep', 'KEY'], false],
    [['rg', 'KEY'], true],
    [['rg', '-t', 'ts', 'KEY', 'src'], false],
    [['git', 'grep', '--untracked', 'KEY'], true],
    [['git', 'grep', 'KEY'], false],
  ])('%j → %s', (argv, expected) => {
    expect(searchesWorkingDirectory(argv)).toBe(expected);
  });
});
