// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, where ${…} is bash syntax
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnalyzedSubcommand, analyzeCommand, loadShellParser } from '../src/shell/index.ts';

/**
 * Differential test of compound commands against real bash: for generated lines (constructs ×
 * bodies × word forms), every program bash actually runs must be one of the subcommands the
 * analyser listed, with the same number of words, every literal word equal, and every word the
 * analyser marked as runtime-valued matching what bash produced for it (an arithmetic expansion is
 * one integer, `$(git ls-files)` paths below the directory). The programs are marker scripts that
 * log their argv; bash runs in a temp git repository.
 */

const bash = spawnSync('bash', ['-c', 'exit 0']).status === 0;
let root = '';
let project = '';
let bin = '';
let log = '';

const markers = ['mk_a', 'mk_b', 'mk_c'] as const;

beforeAll(async () => {
  await loadShellParser();
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'efferent-constructs-diff-')));
  project = path.join(root, 'proj');
  bin = path.join(root, 'bin');
  log = path.join(root, 'log');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  mkdirSync(bin);
  writeFileSync(path.join(project, 'README.md'), 'one\ntwo\n');
  writeFileSync(path.join(project, 'src', 'a.ts'), 'a\n');
  writeFileSync(path.join(project, 'src', 'b.ts'), 'b\n');
  execFileSync('git', ['init', '-q', project]);
  execFileSync('git', ['-C', project, 'add', '.']);
  for (const name of markers) {
    const script = path.join(bin, name);
    // One line per run: the program name, then each argument, separated by U+001F.
    writeFileSync(
      script,
      `#!/bin/sh\n{ printf '%s' "${name}"; for a in "$@"; do printf '\\037%s' "$a"; done; printf '\\n'; } >> "$MARK_LOG"\n`,
    );
    chmodSync(script, 0o755);
  }
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const templates = [
  'BODY',
  '[ -d src ] && BODY',
  '[ -f missing ] || BODY',
  '[[ -f README.md && -d src ]] && BODY',
  'test -n "$HOME" && BODY',
  'if [ -d src ]; then BODY; fi',
  'if [ -f missing ]; then mk_c no; else BODY; fi',
  'if [ -f missing ]; then mk_c no; elif [[ -d src ]]; then BODY; else mk_c never; fi',
  'for f in one "two words" three; do BODY; done',
  'for f in src/*.ts; do BODY; done',
  'for f in $(git ls-files); do BODY; done',
  'while read -r line; do BODY; done < README.md',
  'git ls-files | while read -r f; do BODY; done',
  'until mk_c cond; do :; done; BODY',
  'case "$HOME" in /*) BODY;; *) mk_c other;; esac',
  'case x in a|b) mk_c ab;; x) BODY;& y) mk_c fell;; esac',
  'set -eu; BODY',
  'set -euo pipefail; BODY',
  'if [ -d src ]; then for g in 1 2; do BODY; done; fi',
  'for f in a; do if [[ -n "$f" ]]; then BODY; fi; done',
];

const bodies = [
  'mk_a plain',
  'mk_a "$f"',
  'mk_a $(( 1 + 2 ))',
  'mk_b "x y" \'q\'',
  'mk_b $(git ls-files)',
  'mk_a $(( 7 % 3 )) "$(( -2 ))" x',
];

interface Run {
  name: string;
  args: string[];
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * Runs every line in one bash process, each in its own subshell through eval (so `set -e` or a
 * syntax error stays in its line), and returns the marker runs of each line.
 */
function runBash(lines: readonly string[]): Run[][] {
  rmSync(log, { force: true });
  const script = lines.map((line) => `( eval ${quote(line)} ); echo @@ >> "$MARK_LOG"`).join('\n');
  spawnSync('bash', ['-c', script], {
    cwd: project,
    env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: project, MARK_LOG: log },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const text = readFileSync(log, 'utf8');
  return text
    .split('@@\n')
    .slice(0, lines.length)
    .map((chunk) =>
      chunk
        .split('\n')
        .filter(Boolean)
        .map((entry) => {
          const [name = '', ...args] = entry.split('\x1f');
          return { name, args };
        }),
    );
}

/** Whether bash's word can be what the analyser described. */
function wordMatches(expected: string, kind: string | undefined, actual: string): boolean {
  if (kind === 'literal') return expected === actual;
  if (expected.startsWith('$((') || expected.startsWith('"$((')) return /^-?\d+$/.test(actual);
  if (expected.endsWith('/**')) {
    const directory = expected.slice(0, -3);
    const inside = directory === '.' ? actual : path.relative(directory, actual);
    return !path.isAbsolute(actual) && !inside.startsWith('..');
  }
  return true;
}

/** `$(git ls-files)` expands to any number of words (paths below the directory). */
const spreads = (word: string) => word.endsWith('/**');

/** Matches bash's words against the analysed ones; a spreading word takes zero or more words. */
function wordsMatch(
  expected: readonly string[],
  kinds: readonly (string | undefined)[],
  actual: readonly string[],
): boolean {
  const [word, ...rest] = expected;
  if (word === undefined) return actual.length === 0;
  const [kind, ...restKinds] = kinds;
  if (spreads(word)) {
    for (let taken = 0; taken <= actual.length; taken++) {
      const part = actual.slice(0, taken);
      if (
        part.every((value) => wordMatches(word, kind, value)) &&
        wordsMatch(rest, restKinds, actual.slice(taken))
      )
        return true;
    }
    return false;
  }
  const [first, ...others] = actual;
  return first !== undefined && wordMatches(word, kind, first) && wordsMatch(rest, restKinds, others);
}

function explains(subcommand: AnalyzedSubcommand, run: Run): boolean {
  if (subcommand.argv[0] !== run.name) return false;
  return wordsMatch(subcommand.argv.slice(1), subcommand.argKinds.slice(1), run.args);
}

describe.skipIf(!bash)('compound commands against real bash', () => {
  const lines = templates.flatMap((template) => bodies.map((body) => template.replace('BODY', body)));

  it(`every program bash runs is a subcommand the analyser listed (${lines.length} generated lines)`, () => {
    const problems: string[] = [];
    let observed = 0;
    const runs = runBash(lines);
    expect(runs).toHaveLength(lines.length);
    for (const [index, line] of lines.entries()) {
      const analysis = analyzeCommand(line, { cwd: project, home: project });
      if (analysis.kind !== 'analyzed') {
        problems.push(`${JSON.stringify(line)}: not analysed (${analysis.reason})`);
        continue;
      }
      for (const run of runs[index] ?? []) {
        observed++;
        if (!analysis.subcommands.some((subcommand) => explains(subcommand, run))) {
          problems.push(
            `${JSON.stringify(line)}: bash ran ${JSON.stringify([run.name, ...run.args])}, analysed ${JSON.stringify(
              analysis.subcommands.map((subcommand) => subcommand.argv),
            )}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
    // The markers really ran: the comparison is not vacuous.
    expect(observed).toBeGreaterThan(lines.length);
  }, 120_000);

  const testTemplates = [
    '[ -f A ]',
    '[ A = B ]',
    '[ ! -n A ]',
    '[ A != B -a -d src ]',
    '[ -z A -o B = x ]',
    'test -z A',
    'test A = B',
    'test ! A',
  ];
  const operands = [
    'src',
    '"$v"',
    "'q r'",
    '"a b"',
    'x\\ y',
    '"$(( 1 + 2 ))"',
    '"$(echo hi)"',
    '"${v}"',
    '-f',
  ];
  const testLines = testTemplates.flatMap((template) =>
    operands.flatMap((a) => operands.map((b) => `v='s p'; ${template.replace('A', a).replace('B', b)}`)),
  );

  it(`[ ] and test receive exactly the words the analyser resolved (${testLines.length} generated lines)`, () => {
    // Functions named [ and test print their arguments: bash passes them what its builtin would get.
    const prelude =
      'function [ { printf "%s\\037" "[" "$@"; echo; }; function test { printf "%s\\037" test "$@"; echo; }; ';
    // One bash process for all lines; each runs through eval, so a syntax error stays in its line.
    const script = prelude + testLines.map((line) => `eval ${quote(line)}; printf '\\n@@\\n'`).join('\n');
    const result = spawnSync('bash', ['-c', script], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    const outputs = result.stdout.split('\n@@\n');
    const problems: string[] = [];
    let compared = 0;
    testLines.forEach((line, index) => {
      const analysis = analyzeCommand(line, { cwd: project, home: project });
      if (analysis.kind !== 'analyzed') return;
      const emitted = analysis.subcommands.find((subcommand) =>
        ['[', 'test'].includes(subcommand.argv[0] ?? ''),
      );
      const words = (outputs[index] ?? '').split('\n')[0]?.split('\x1f').slice(0, -1) ?? [];
      compared++;
      if (!emitted || !wordsMatch(emitted.argv, emitted.argKinds, words)) {
        problems.push(
          `${JSON.stringify(line)}: bash passed ${JSON.stringify(words)}, analysed ${JSON.stringify(emitted?.argv)}`,
        );
      }
    });
    expect(problems).toEqual([]);
    expect(compared).toBeGreaterThan(testLines.length / 2);
  }, 120_000);
});
