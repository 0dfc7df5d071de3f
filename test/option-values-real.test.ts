import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * An option's value ends where the program ends it (class `option-values`,
 * docs/decisions/security-option-values.md). The read-only tables read a value-taking letter the
 * way getopt does: the rest of the word, else the next word, and the cluster is over. less ends an
 * attached value where its digits (or text before a `$`) end and reads the rest as options, so
 * `less -x4kkeys f` loads the lesskey file `keys`, whose `#env` section sets LESSOPEN, a command
 * less runs; tree takes every value from the next word and goes on with the cluster, so
 * `tree -Lo 2 out src` writes `out`; and where a table says an option takes a value that the
 * program does not take (tree's `-J`, `-X`, `--fromfile`; git's `-U`, which only takes an attached
 * one), the next word, an option the table would refuse, was swallowed as that value.
 */

/** A lesskey file compiled by `lesskey` from `#env\nLESSOPEN=|touch lessopen-ran; cat %s`. */
const lesskeyFile = Buffer.from(
  '004d2b476300006500007626004c4553534f50454e00817c746f756368206c6573736f70656e2d72616e3b206361742025730078456e64',
  'hex',
);

const place = decisionPlace('efferent-option-values-', (made) => {
  writeFileSync(join(made.project, 'README.md'), '# readme\n');
  writeFileSync(join(made.project, 'keys'), lesskeyFile);
  mkdirSync(join(made.project, 'src'), { recursive: true });
  writeFileSync(join(made.project, 'src', 'a.ts'), 'export const a = 1;\n');
});

const installed = (program: string) =>
  spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).status === 0;

/** less's letters and long options whose attached value is a number, tab stops, a fraction or text. */
const lessValued: ReadonlyArray<readonly [string, string]> = [
  ['-b', '1'],
  ['-h', '2'],
  ['-y', '1'],
  ['-z', '3'],
  ['-z', '-4'],
  ['-x', '4'],
  ['-x', '4,8'],
  ['-j', '1'],
  ['-j', '.5'],
  ['--buffers=', '1'],
  ['--max-back-scroll=', '2'],
  ['--max-forw-scroll=', '1'],
  ['--window=', '3'],
  ['--shift=', '4'],
  ['--tabs=', '4'],
  ['--jump-target=', '1'],
];
const lessText: readonly string[] = ['-p', '-P', '--pattern=', '--prompt='];
/** What the rest of the word becomes: a lesskey file, a log file, a log file that overwrites. */
const lessRest: readonly string[] = ['kkeys', 'k./keys', 'olog.txt', 'Olog.txt'];
const lessPrefixes: readonly string[] = ['', 'N', 'S', 'Ni'];

const lessAttacks = [
  ...lessValued.flatMap(([option, value]) =>
    lessRest.flatMap((rest) =>
      (option.startsWith('--') ? [''] : lessPrefixes).map((prefix) =>
        option.startsWith('--')
          ? `less ${option}${value}${rest} README.md`
          : `less -${prefix}${option.slice(1)}${value}${rest} README.md`,
      ),
    ),
  ),
  ...lessText.flatMap((option) =>
    lessRest.flatMap((rest) =>
      [`'${option}foo$${rest}'`, `"${option}foo\\$${rest}"`, `${option}foo\\$${rest}`].map(
        (word) => `less ${word} README.md`,
      ),
    ),
  ),
  ...lessRest.map((rest) => `less -x4 -Nx4${rest} README.md`),
  ...lessRest.map((rest) => `more -x4${rest} README.md`),
];

/** tree: every value-taking letter followed by the output letters in the same cluster. */
const treeAttacks = [
  ...['L 2', 'P "*"', 'I x'].flatMap((valued) =>
    ['o', 'R', 'ao', 'oa'].flatMap((rest) =>
      ['', 'a', 'd'].map((prefix) => {
        const [letter, value] = valued.split(' ');
        return `tree -${prefix}${letter}${rest} ${value} out.txt src`;
      }),
    ),
  ),
  ...['-J', '-X', '-aJ', '-dX', '--fromfile'].flatMap((flag) =>
    ['-o out.txt', '-o .bashrc', '-R -o out.txt'].map((rest) => `tree ${flag} ${rest} src`),
  ),
];

/** Options a table assumed took the next word: it must not hide the option after it. */
const swallowed: readonly string[] = [
  'git diff -U --ext-diff -- src',
  'git diff -U --output=out.txt -- src',
  'git log -p -U --ext-diff -- src',
  'git show -U --ext-diff HEAD -- src',
  'tree --sort -o out.txt src',
  'tree --charset -o out.txt src',
  'grep -e --pre=sh x README.md',
  'rg -e --pre=sh x README.md',
  'rg -g --pre=sh x README.md',
  'sort -k --compress-program=sh README.md',
  'sort -t --output=out.txt README.md',
  'sort -T -o out.txt README.md',
];

const rules: ReadonlyArray<readonly [string, Record<string, string[]>]> = [
  ['no rules', {}],
  ['Bash(less *)', { allow: ['Bash(less *)', 'Bash(more *)', 'Bash(tree *)'] }],
];

describe('an option value ends where the program ends it', () => {
  it.skipIf(!installed('less'))('real less loads a lesskey file from the rest of a number', () => {
    for (const command of [
      'less -x4kkeys README.md',
      'less --tabs=4kkeys README.md',
      "less '-Pa$kkeys' README.md",
    ]) {
      rmSync(join(place.project, 'lessopen-ran'), { force: true });
      place.bash(command);
      expect(existsSync(join(place.project, 'lessopen-ran')), command).toBe(true);
    }
    // Without the overrun the same less runs nothing.
    rmSync(join(place.project, 'lessopen-ran'), { force: true });
    place.bash('less -x4 -p foo README.md');
    expect(existsSync(join(place.project, 'lessopen-ran'))).toBe(false);
  });

  it.skipIf(!installed('tree'))('real tree takes each value from the next word and writes -o', () => {
    for (const command of [
      'tree -Lo 2 out.txt src',
      'tree -aJ -o out.txt src',
      'tree --fromfile -o out.txt src',
    ]) {
      rmSync(join(place.project, 'out.txt'), { force: true });
      place.bash(command);
      expect(existsSync(join(place.project, 'out.txt')), command).toBe(true);
    }
    rmSync(join(place.project, 'out.txt'), { force: true });
  });

  it('real git reads -U without a value and writes --output after it', () => {
    place.bash('git init -q && git add -A && git -c user.email=a@b -c user.name=a commit -qm i');
    writeFileSync(join(place.project, 'src', 'a.ts'), 'export const a = 2;\n');
    place.bash('git diff -U --output=out.txt -- src');
    expect(existsSync(join(place.project, 'out.txt'))).toBe(true);
    rmSync(join(place.project, 'out.txt'), { force: true });
  });

  const attacks = [...lessAttacks, ...treeAttacks, ...swallowed];
  it(`${attacks.length} spellings × ${rules.length} rule sets × 3 modes are never allowed`, async () => {
    expect(attacks.length).toBeGreaterThan(250);
    const allowed: string[] = [];
    for (const command of attacks) {
      for (const [name, set] of rules) {
        for (const mode of ['default', 'acceptEdits', 'plan'] as const) {
          const result = await place.decide(command, set, mode);
          if (result.behavior === 'allow') allowed.push(`${command} (${name}, ${mode})`);
        }
      }
    }
    expect(allowed).toEqual([]);
  });

  it.each([
    'less README.md',
    'less -N README.md',
    'less -x4 README.md',
    'less -x4,8 README.md',
    'less --tabs=4 README.md',
    'less -j.5 README.md',
    'less -z10 README.md',
    'less -Nx4 README.md',
    'less -p foo README.md',
    "less -p 'foo$' README.md",
    'less -Pfoo README.md',
    'less -R README.md',
    'more README.md',
    'tree src',
    'tree -L 2 src',
    'tree -aL 2 src',
    'tree -J src',
    'tree -aJ src',
    'tree -X src',
    'tree -I node_modules src',
    'tree -P "*.ts" src',
    'tree --sort=name src',
    'tree --sort name src',
    'tree --fromfile README.md',
    'grep -e -v README.md',
    'grep -n -e -x README.md',
    'head -n -5 README.md',
    'tail -n -5 README.md',
    'date -d "-1 day"',
    'git diff -U3 -- src',
    'git diff --stat -- src',
    'git log -n 5 --oneline',
    'sort -t , -k 2 README.md',
    'cut -d - -f 1 README.md',
  ])('%s stays allowed', async (command) => {
    const result = await place.decide(command, {}, 'default');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });

  it.each([
    ['Bash(less *)', 'less -x4 README.md'],
    ['Bash(less *)', 'less --tabs=4 README.md'],
    ['Bash(less *)', 'less -Pfoo README.md'],
  ])('%s still allows %s', async (rule, command) => {
    const result = await place.decide(command, { allow: [rule] }, 'default');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
