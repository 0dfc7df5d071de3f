import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSedEditArgv, simulateSedEdit } from './sed-edit.ts';

const directory = mkdtempSync(join(tmpdir(), 'efferent-sed-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** What real GNU sed leaves in the file. */
function realSed(args: readonly string[], content: string): string {
  const file = join(directory, 'target.txt');
  writeFileSync(file, content);
  execFileSync('sed', [...args, file], { env: { ...process.env, LC_ALL: 'C.UTF-8' }, stdio: 'pipe' });
  return readFileSync(file, 'utf8');
}

function simulated(args: readonly string[], content: string): string | undefined {
  const command = parseSedEditArgv(['sed', ...args, 'target.txt']);
  return command ? simulateSedEdit(content, command) : undefined;
}

const sample = 'foo bar foo\nBar baz\n\nfoofoo 123 abc\nlast line foo';
const sampleWithNewline = `${sample}\n`;

const supported: Array<readonly string[]> = [
  ['-i', 's/foo/X/'],
  ['-i', 's/foo/X/g'],
  ['-i', 's/foo/X/2'],
  ['-i', 's/foo/X/2g'],
  ['-i', 's/bar/Q/I'],
  ['-i', 's/bar/Q/gi'],
  ['-i', 's/o*/-/g'],
  ['-i', 's/x*/-/g'],
  ['-i', 's/a*/x/3'],
  ['-i', 's/^/> /'],
  ['-i', 's/$/;/'],
  ['-i', 's/\\(foo\\) \\(bar\\)/\\2 \\1/'],
  ['-i', '-E', 's/(foo) (bar)/\\2 \\1/'],
  ['-E', '-i', 's/[0-9]+/<&>/g'],
  ['-i', 's/[0-9]\\+/<&>/g'],
  ['-ri', 's/o{2}/00/g'],
  ['-i', 's/o\\{1,\\}/0/g'],
  ['-i', 's/[[:alpha:]]*/W/2'],
  ['-i', 's/[^a-z ]/#/g'],
  ['-i', 's/\\<foo\\>/F/g'],
  ['-i', 's/\\bba/BA/g'],
  ['-i', 's/a.c/A_C/'],
  ['-i', 's/foo/a\\nb/'],
  ['-i', 's/ /\\t/g'],
  ['-i', 's|foo|/path/|g'],
  ['-i', 's/\\//x/'],
  ['-i', 's/o/\\&amp;/g'],
  ['-i', '2s/a/A/g'],
  ['-i', '$s/foo/END/'],
  ['-i', '/baz/s/a/4/g'],
  ['-i', '/^foo/s/o/0/g'],
  ['-i', '-e', 's/foo/1/', '-e', 's/bar/2/'],
  ['-i', 's/foo/1/;s/1/one/g'],
  ['-n', '-i', 's/foo/F/p'],
  ['-i', 's/foo/F/p'],
  ['-i', 's/\\(o\\)\\1/double/g'],
  ['-i', 's/f.*o/[&]/'],
  ['-i', 's/a*b*/+/g'],
  ['-i', 's/[]x]/R/g'],
  ['-i', '-E', 's/^(.)(.*)$/\\2\\1/'],
  ['-i', 's/.$//'],
  ['--in-place', '--expression=s/foo/E/g'],
  ['-i', 's/\\./dot/g'],
  ['-i', 's/a\\|b/x/'],
];

describe('sed simulation matches GNU sed', () => {
  for (const args of supported) {
    it(`sed ${args.join(' ')}`, () => {
      for (const content of [sample, sampleWithNewline, '', 'foo', '\n\n']) {
        const expected = realSed(args, content);
        const actual = simulated(args, content);
        // The simulator may decline (undefined); when it answers, it must be exactly right.
        if (actual !== undefined) expect(actual).toBe(expected);
      }
    });
  }

  it('answers for the common forms (declining is only for the risky subset)', () => {
    const declined = supported
      .filter((args) => simulated(args, sample) === undefined)
      .map((args) => args.join(' '));
    expect(declined).toEqual(['-i s/a\\|b/x/']);
  });

  it('agrees with GNU sed on random substitutions over a small alphabet', () => {
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', 'a*', 'b*', '.*', '^', '$', '\\(a\\)', 'ab');
    const runs = Number(process.env['EFFERENT_FUZZ_RUNS'] ?? 60);
    fc.assert(
      fc.property(
        fc.array(atom, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('', 'X', '&&', '<&>', '\\n'),
        fc.constantFrom('', 'g', '2', '2g', 'i'),
        fc.stringMatching(/^[ab\n]{0,12}$/),
        (atoms, replacement, flags, content) => {
          const script = `s/${atoms.join('')}/${replacement}/${flags}`;
          const actual = simulated(['-i', script], content);
          if (actual === undefined) return true;
          let expected: string;
          try {
            expected = realSed(['-i', script], content);
          } catch {
            return false; // sed rejected a script the simulator accepted
          }
          return actual === expected;
        },
      ),
      { numRuns: runs },
    );
  });
});

describe('parseSedEditArgv', () => {
  it('declines everything it cannot simulate exactly', () => {
    const declined: Array<readonly string[]> = [
      ['sed', 's/a/b/', 'f'], // not in place
      ['sed', '-i.bak', 's/a/b/', 'f'], // backup suffix
      ['sed', '-iE', 's/a/b/', 'f'], // suffix "E", not -E
      ['sed', '-i', 's/a/b/', 'f', 'g'], // two files
      ['sed', '-i', 's/a/b/w out', 'f'], // writes another file
      ['sed', '-i', 's/a/b/e', 'f'], // executes
      ['sed', '-i', '1d', 'f'], // other commands
      ['sed', '-i', '1,3s/a/b/', 'f'], // ranges
      ['sed', '-i', 's/a/\\U&/', 'f'], // case conversion
      ['sed', '-i', '-f', 'script.sed', 'f'],
      ['sed', '-i', '-z', 's/a/b/', 'f'],
      ['sed', '-i', 's//b/', 'f'], // empty regex = previous regex
      ['sed', '-i', '-E', 's/(a|b)/x/', 'f'], // alternation: POSIX longest match differs
      ['sed', '-i', '-E', 's/(ab)?c/x/', 'f'], // quantified group
      ['sed', '-i', 's/[\\n]/x/', 'f'], // backslash in brackets
      ['sed', '-i', 's/a/b/', '-'],
      ['sed', '-i', 's/a/\\3/', 'f'], // missing group
    ];
    for (const argv of declined) expect(parseSedEditArgv(argv), argv.join(' ')).toBeUndefined();
  });

  it('accepts clustered options and -e scripts', () => {
    expect(parseSedEditArgv(['sed', '-Ei', 's/a+/b/', 'f'])?.file).toBe('f');
    expect(parseSedEditArgv(['sed', '-ni', '-e', 's/a/b/p', 'f'])?.program.quiet).toBe(true);
    expect(parseSedEditArgv(['sed', '-i', '-es/a/b/', '--', 'f'])?.file).toBe('f');
  });
});
