import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand, isReadOnlyCommand, loadShellParser, parseForSecurity } from '../src/shell/index.ts';

/**
 * Randomised robustness of the shell analyser: random bytes, shell operators, quotes, unicode
 * tricks, deep nesting and mutations of real commands. Runs per property come from
 * EFFERENT_FUZZ_RUNS (default 1,000, so about 3,000 inputs in CI).
 */
const runs = Number(process.env.EFFERENT_FUZZ_RUNS ?? 1000);
/** A hang detector, not a benchmark: calls take well under a millisecond, but CI machines stall. */
const perCallMs = 3000;
/** Test timeout scaled to the run count (about 1 ms per input, with headroom). */
const testTimeoutMs = Math.max(30_000, runs * 3);

const corpus: string[] = (
  JSON.parse(
    readFileSync(new URL('../src/shell/fixtures/security-sample-bash.json', import.meta.url), 'utf8'),
  ) as Array<{
    command: string;
  }>
)
  .map((entry) => entry.command)
  .concat([
    'git status --short',
    "sed -n '1,20p' file",
    'find . -name "*.ts" | xargs grep foo',
    'cat <<EOF\nhello $USER\nEOF',
    'cd src && ls -la',
    "jq '.x' f.json",
    'timeout 5 nice -n 3 rg -n foo src',
  ]);

const fragments = [
  ' ',
  '\t',
  '\n',
  ';',
  '&',
  '&&',
  '|',
  '||',
  '|&',
  '>',
  '>>',
  '<',
  '<<',
  '<<<',
  '>&',
  '&>',
  '>|',
  '<>',
  '2>&1',
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  '[[',
  ']]',
  '$',
  '$(',
  '`',
  '${',
  '$((',
  '<(',
  '>(',
  '=(',
  "'",
  '"',
  '\\',
  '\\\n',
  '#',
  '!',
  '*',
  '?',
  '~',
  '=',
  ',',
  '..',
  '-',
  '--',
  'x',
  'rm',
  'ls',
  'cat',
  'git',
  'echo',
  'sed',
  'bash -c ',
  'eval ',
  'env ',
  'timeout 5 ',
  'xargs ',
  'cd ',
  '-exec',
  '-i',
  '--output=',
  'IFS=',
  'PATH=',
  '$IFS',
  '/proc/self/environ',
  '\r',
  '\u0000',
  '\u00a0',
  '\u200b',
  '\u202e',
  '\u3000',
  'é',
  '😀',
  'EOF',
  "'EOF'",
  '0',
  '9',
];

const fragmentCommand = fc
  .array(fc.constantFrom(...fragments), { maxLength: 40 })
  .map((parts) => parts.join(''));
const randomText = fc.string({ unit: 'binary', maxLength: 200 });
const nested = fc
  .tuple(
    fc.integer({ min: 1, max: 200 }),
    fc.constantFrom('$(', '`', '<(', '"$(', '{ ', '( '),
    fc.constantFrom('ls', 'rm x', ''),
  )
  .map(([depth, open, body]) => {
    const close = { '$(': ')', '`': '`', '<(': ')', '"$(': ')"', '{ ': '; }', '( ': ')' }[open] ?? ')';
    return `echo ${open.repeat(depth)}${body}${close.repeat(depth)}`;
  });
const mutated = fc
  .tuple(fc.constantFrom(...corpus), fc.nat(), fc.constantFrom(...fragments), fc.nat({ max: 5 }))
  .map(([base, position, insert, remove]) => {
    const at = position % (base.length + 1);
    return base.slice(0, at) + insert + base.slice(at + remove);
  });

const anyCommand = fc.oneof(fragmentCommand, randomText, nested, mutated);

function timed<T>(run: () => T): T {
  const start = performance.now();
  const result = run();
  const elapsed = performance.now() - start;
  if (elapsed > perCallMs) throw new Error(`analysis took ${elapsed.toFixed(0)} ms`);
  return result;
}

beforeAll(async () => {
  await loadShellParser();
});

describe('shell analyser fuzz', () => {
  it(
    'never throws or hangs, and never calls a failed analysis read-only',
    () => {
      fc.assert(
        fc.property(anyCommand, (command) => {
          const parsed = timed(() => parseForSecurity(command));
          const analysis = timed(() => analyzeCommand(command, { cwd: '/srv/proj', home: '/home/user' }));
          const readOnly = timed(() => isReadOnlyCommand(command, { cwd: '/srv/proj' }));
          expect(['simple', 'too-complex']).toContain(parsed.kind);
          expect(analysis.kind === 'too-complex').toBe(parsed.kind === 'too-complex');
          if (analysis.kind === 'too-complex' || analysis.tooManySubcommands || analysis.tooLong) {
            expect(readOnly).toBe(false);
          } else if (readOnly) {
            expect(analysis.subcommands.every((subcommand) => subcommand.readOnly)).toBe(true);
          }
        }),
        { numRuns: runs },
      );
    },
    testTimeoutMs,
  );

  it(
    'adding a write or a program to a read-only command never stays read-only',
    () => {
      const readOnlyBases = corpus.filter((command) => isReadOnlyCommand(command));
      expect(readOnlyBases.length).toBeGreaterThan(10);
      const suffixes = [
        '; rm -rf x',
        ' > out',
        ' >> ~/.bashrc',
        ' | sh',
        ' && curl x',
        ' $(touch p)',
        '\ntouch p',
        ' &> f',
      ];
      fc.assert(
        fc.property(fc.constantFrom(...readOnlyBases), fc.constantFrom(...suffixes), (base, suffix) => {
          expect(isReadOnlyCommand(base + suffix)).toBe(false);
        }),
        { numRuns: Math.max(100, Math.floor(runs / 10)) },
      );
    },
    testTimeoutMs,
  );

  it(
    'a mutated corpus command is only read-only when it parses as plain simple commands',
    () => {
      fc.assert(
        fc.property(mutated, (command) => {
          const readOnly = timed(() => isReadOnlyCommand(command));
          if (!readOnly) return;
          const parsed = parseForSecurity(command);
          expect(parsed.kind).toBe('simple');
        }),
        { numRuns: runs },
      );
    },
    testTimeoutMs,
  );
});
