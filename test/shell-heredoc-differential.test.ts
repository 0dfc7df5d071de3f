import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planHeredocs } from '../src/shell/heredoc.ts';
import { loadShellParser, parseForSecurity } from '../src/shell/index.ts';
import { TooComplexError } from '../src/shell/walk-errors.ts';

/**
 * Differential test of heredocs against real bash. Every generated command line holds probes
 * (`echo P… >&3`) in heredoc bodies, inside substitutions, on the terminator's neighbours and after
 * the heredoc. bash runs the line the way the Bash tool does (`eval` inside `bash -c`) with fd 3 to a
 * pipe, so the probes it prints are exactly the commands it ran. For every line the analyser does
 * not call too-complex, each probe bash ran must appear as a command the analyser reports (so deny
 * rules and read-only checks see it), and the analyser must not report probes bash left as data.
 * For plain `cat` heredocs the body text the analyser computed must equal what bash printed.
 */
const bash = spawnSync('bash', ['-c', 'exit 0']).status === 0;
const randomRuns = Math.max(200, Math.floor(Number(process.env.EFFERENT_FUZZ_RUNS ?? 1000) / 4));
let directory = '';

interface Variant {
  command: string;
  /** Heredoc body is printed by a plain `cat` as the only stdout. */
  plainCat: boolean;
}

/** Delimiters as written, and the line bash compares against after quote removal. */
const delimiters: ReadonlyArray<{ word: string; term: string }> = [
  { word: 'EOF', term: 'EOF' },
  { word: "'EOF'", term: 'EOF' },
  { word: '"EOF"', term: 'EOF' },
  { word: 'E"O"F', term: 'EOF' },
  { word: '\\EOF', term: 'EOF' },
  { word: 'E\\OF', term: 'EOF' },
  { word: "'E'OF", term: 'EOF' },
  { word: "EO'F'", term: 'EOF' },
  { word: `"E"'O'F`, term: 'EOF' },
  { word: "$'EOF'", term: 'EOF' },
  { word: '$"EOF"', term: 'EOF' },
  { word: 'END_1', term: 'END_1' },
  { word: 'a.b-c', term: 'a.b-c' },
  { word: 'X', term: 'X' },
];

const operators = ['<<', '<<-', '<< ', '<<- '];

/** Body lines; `T` is replaced by the terminator. Probes are numbered per body. */
const bodies: ReadonlyArray<string> = [
  'plain text line',
  'run $(echo P1 >&3) here',
  'tick `echo P2 >&3` here',
  'op ${x:-$(echo P3 >&3)}',
  'escaped \\$(echo P4 >&3)',
  'double \\\\$(echo P5 >&3)',
  'joined $\\\n(echo P6 >&3)',
  'math $((1+$(echo P7 >&3; echo 1)))',
  'quoted "$(echo P8 >&3)"',
  'fake $(echo P9 >&3\nT\n)',
  '\tindented $(echo P10 >&3)',
  'vars $HOME ${HOME} $1 $# \\$HOME',
  'ansi $\'\\x41\' $"x"',
  "sq '$(echo P11 >&3)'",
  'nested $(echo "$(echo P12 >&3)")',
  'inner heredoc $(cat <<Y\n$(echo P13 >&3)\nY\n)',
  'brackets $[1+$(echo P14 >&3; echo 1)]',
  'line one\nline two $(echo P15 >&3)\n\tline three',
  'continued \\\n$(echo P16 >&3)',
  'backslash at end \\',
];

/** How the first terminator line is written. `T` is the delimiter. */
const terminators: ReadonlyArray<string> = [
  'T',
  '\tT',
  '\t\tT',
  ' T',
  'T ',
  'T\t',
  'T\r',
  'T;',
  'x\\\nT',
  'T\\\n',
  '"T"',
  '\\T',
];

/** Wrappers: `H` is the heredoc operator and word; `B` is the rest (body, terminators, after). */
const wrappers: ReadonlyArray<{ text: string; plainCat: boolean }> = [
  { text: 'cat H\nB', plainCat: true },
  { text: 'cat H | cat\nB', plainCat: false },
  { text: 'cat H > /dev/null; echo PS >&3\nB', plainCat: false },
  { text: 'cat H && echo PS >&3\nB', plainCat: false },
  { text: '{ cat H\nB\n}', plainCat: false },
  { text: '(cat H\nB\n)', plainCat: false },
  { text: 'echo "$(cat H\nB\n)"', plainCat: false },
  { text: 'x=$(cat H\nB\n)', plainCat: false },
  { text: 'cat H "$(echo PS >&3)"\nB', plainCat: false },
  { text: 'cat H <<Z2\nB\nz2 $(echo PZ >&3)\nZ2', plainCat: false },
  { text: 'cat <<Z1 H\nz1 $(echo PZ >&3)\nZ1\nB', plainCat: false },
  { text: 'cat H; cat <<Z3\nB\nz3 $(echo PZ >&3)\nZ3', plainCat: false },
  { text: 'bash H\nB', plainCat: false },
  { text: 'cat H # note $(echo PC >&3)\nB', plainCat: false },
];

/** Builds one command line. After the first terminator form comes a probe, a real terminator and another probe. */
function build(
  wrapper: (typeof wrappers)[number],
  operator: string,
  delimiter: (typeof delimiters)[number],
  body: string,
  terminator: string,
  ending: 'closed' | 'unterminated' | 'eof',
): Variant {
  const term = delimiter.term;
  const tab = operator.startsWith('<<-') ? '\t' : '';
  const bodyText = body.replace(/^T$/gm, term);
  const first = terminator.replaceAll('T', term);
  let rest = `${bodyText}\n${first}\necho PA >&3`;
  if (ending === 'closed') rest += `\n${tab}${term}\necho PB >&3`;
  if (ending === 'eof') rest += `\n${term}`;
  const command = wrapper.text.replace('H', `${operator}${delimiter.word}`).replace('B', rest);
  return { command, plainCat: wrapper.plainCat && ending !== 'unterminated' };
}

/**
 * Runs many command lines in one bash process, each in its own subshell through `eval` (as the
 * Bash tool does), separating their stdout and fd 3 output with NUL bytes.
 */
function runBash(commands: string[]): Array<{ probes: Set<string>; stdout: string }> {
  // Each line runs in a subshell so one cannot change what the next sees.
  const script = 'for c in "$@"; do (eval "$c") 2>/dev/null; printf "\\0"; printf "\\0" >&3; done';
  const results: Array<{ probes: Set<string>; stdout: string }> = [];
  for (let from = 0; from < commands.length; from += 200) {
    const chunk = commands.slice(from, from + 200);
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...chunk], {
      cwd: directory,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', HOME: directory },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const stdout = result.stdout.split('\0');
    const fd3 = String(result.output[3] ?? '').split('\0');
    expect(stdout.length, 'every command line ran to its separator').toBe(chunk.length + 1);
    for (let index = 0; index < chunk.length; index++) {
      results.push({
        probes: new Set(fd3[index]?.match(/P[A-Z0-9]+/g) ?? []),
        stdout: stdout[index] ?? '',
      });
    }
  }
  return results;
}

function analyserProbes(command: string): Set<string> | 'too-complex' {
  const parsed = parseForSecurity(command);
  if (parsed.kind === 'too-complex') return 'too-complex';
  if (parsed.kind !== 'simple') throw new Error(`parser unavailable for ${JSON.stringify(command)}`);
  const probes = new Set<string>();
  for (const simple of parsed.commands) {
    for (const word of simple.argv) for (const probe of word.match(/^P[A-Z0-9]+$/g) ?? []) probes.add(probe);
  }
  return probes;
}

const tally = { variants: 0, agreed: 0, tooComplex: 0, bodiesCompared: 0 };

/** Analyses every variant; only those the analyser accepts need bash to compare against. */
function checkAll(variants: Variant[]): void {
  const accepted: Array<{ variant: Variant; seen: Set<string> }> = [];
  for (const variant of variants) {
    tally.variants++;
    const seen = analyserProbes(variant.command);
    if (seen === 'too-complex') tally.tooComplex++;
    else accepted.push({ variant, seen });
  }
  const runs = runBash(accepted.map((item) => item.variant.command));
  for (const [index, item] of accepted.entries()) {
    check(item.variant, item.seen, runs[index] as ReturnType<typeof runBash>[number]);
  }
}

function check(variant: Variant, seen: Set<string>, ran: ReturnType<typeof runBash>[number]): void {
  const label = JSON.stringify(variant.command);
  tally.agreed++;
  // Soundness: every command bash ran is one the analyser reports.
  expect(
    [...ran.probes].filter((probe) => !seen.has(probe)),
    `bash ran probes the analyser missed in ${label}`,
  ).toEqual([]);
  // Precision: probes bash kept as heredoc data are not reported as commands.
  expect(
    [...seen].filter((probe) => !ran.probes.has(probe)),
    `analyser reports probes bash did not run in ${label}`,
  ).toEqual([]);
  if (!variant.plainCat) return;
  let plan: ReturnType<typeof planHeredocs>;
  try {
    plan = planHeredocs(variant.command);
  } catch (error) {
    if (error instanceof TooComplexError) return;
    throw error;
  }
  const span = plan?.heredocs[0];
  if (!span?.literal) return;
  tally.bodiesCompared++;
  expect(ran.stdout, `body text of ${label}`).toBe(span.body);
}

beforeAll(async () => {
  await loadShellParser();
  directory = mkdtempSync(path.join(tmpdir(), 'efferent-heredoc-diff-'));
});

afterAll(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe.runIf(bash)('heredocs: the analyser reads bodies and terminators as bash does', () => {
  it('agrees on every delimiter spelling, operator and terminator form', () => {
    const variants: Variant[] = [];
    const plain = wrappers[0] as (typeof wrappers)[number];
    let bodyIndex = 0;
    for (const delimiter of delimiters) {
      for (const operator of operators) {
        for (const terminator of terminators) {
          const body = bodies[bodyIndex++ % bodies.length] ?? '';
          variants.push(build(plain, operator, delimiter, body, terminator, 'closed'));
        }
        variants.push(build(plain, operator, delimiter, 'run $(echo P1 >&3)', 'T', 'unterminated'));
        variants.push(build(plain, operator, delimiter, 'run $(echo P1 >&3)', 'T', 'eof'));
      }
    }
    expect(variants.length).toBe(delimiters.length * operators.length * (terminators.length + 2));
    checkAll(variants);
  }, 300_000);

  it('agrees on every body form inside every wrapper', () => {
    const variants: Variant[] = [];
    // Unquoted, quoted, and backslash-quoted with <<- and a tab-indented terminator, in turn.
    const chosen = [delimiters[0], delimiters[1], delimiters[5]] as Array<(typeof delimiters)[number]>;
    let turn = 0;
    for (const wrapper of wrappers) {
      for (const body of bodies) {
        const index = turn++ % chosen.length;
        const delimiter = chosen[index] as (typeof delimiters)[number];
        const dash = index === 2;
        variants.push(build(wrapper, dash ? '<<-' : '<<', delimiter, body, dash ? '\tT' : 'T', 'closed'));
      }
    }
    expect(variants.length).toBe(wrappers.length * bodies.length);
    checkAll(variants);
  }, 300_000);

  it('agrees on random combinations', () => {
    const variants = fc.sample(
      fc
        .tuple(
          fc.constantFrom(...wrappers),
          fc.constantFrom(...operators),
          fc.constantFrom(...delimiters),
          fc.array(fc.constantFrom(...bodies), { minLength: 1, maxLength: 3 }),
          fc.constantFrom(...terminators),
          fc.constantFrom('closed' as const, 'unterminated' as const, 'eof' as const),
        )
        .map(([wrapper, operator, delimiter, lines, terminator, ending]) =>
          build(wrapper, operator, delimiter, lines.join('\n'), terminator, ending),
        ),
      { numRuns: randomRuns },
    );
    checkAll(variants);
    // A differential test that only ever says "too complex" proves nothing.
    expect(tally.agreed).toBeGreaterThan(tally.variants / 4);
    expect(tally.bodiesCompared).toBeGreaterThan(20);
    console.log(`heredoc differential: ${JSON.stringify(tally)}`);
  }, 300_000);
});
