import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, parseForSecurity } from '../src/shell/index.ts';

/**
 * Differential test against real bash: whenever the analyser says a line is exactly one `printf`
 * with fully literal arguments, bash must print exactly those arguments. A mismatch means bash
 * splits, quotes or expands words differently from the analyser (the root of most parser bypasses).
 * The alphabet cannot spell an existing program, and bash runs in an empty temp directory.
 */
const runs = Math.max(200, Math.floor(Number(process.env.EFFERENT_FUZZ_RUNS ?? 1000) / 5));
const bash = spawnSync('bash', ['-c', 'exit 0']).status === 0;
let directory = '';

const pieces = [
  'a',
  'b',
  'ab',
  ' ',
  '  ',
  '\t',
  "'",
  '"',
  '\\',
  '\\\n',
  '$',
  '{',
  '}',
  ',',
  '*',
  '?',
  '[',
  ']',
  '#',
  '~',
  '=',
  ';',
  '&',
  '|',
  '(',
  ')',
  '<',
  '>',
  '!',
  '-',
  '--',
  '\n',
  '`',
  '..',
  '%',
];

const word = fc
  .array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.join(''));

beforeAll(async () => {
  await loadShellParser();
  directory = mkdtempSync(path.join(tmpdir(), 'efferent-shell-diff-'));
});

afterAll(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe.runIf(bash)('analyser agrees with bash on literal words', () => {
  it(
    'prints exactly the argv the analyser resolved',
    () => {
      let compared = 0;
      fc.assert(
        fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), (words) => {
          const command = `printf '%s\\0' ${words.join(' ')}`;
          const parsed = parseForSecurity(command);
          if (parsed.kind !== 'simple' || parsed.commands.length !== 1) return;
          const [only] = parsed.commands;
          if (only?.argv[0] !== 'printf' || only.redirects.length > 0 || only.envVars.length > 0) return;
          if (only.argKinds?.some((kind) => kind !== 'literal')) return;
          const result = spawnSync('bash', ['--norc', '--noprofile', '-c', command], {
            cwd: directory,
            // HOME='~' keeps tilde expansion visible as the literal the analyser reports.
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', HOME: '~' },
            encoding: 'utf8',
            timeout: 5000,
          });
          compared++;
          const printed = result.stdout.split('\0').slice(0, -1);
          // With no arguments printf still applies its format once.
          const expected = only.argv.length > 2 ? only.argv.slice(2) : [''];
          expect(printed, JSON.stringify(command)).toEqual(expected);
        }),
        { numRuns: runs },
      );
      expect(compared).toBeGreaterThan(0);
    },
    Math.max(30_000, runs * 50),
  );
});
