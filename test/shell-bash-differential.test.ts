import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalizePath, fsRealpath, isUnresolvable } from '../src/permissions/paths/canonical-path.ts';
import { analyzeCommand, loadShellParser, parseForSecurity } from '../src/shell/index.ts';

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

/**
 * Differential test of `cd` against real bash, with real symlinks: where the engine resolves the
 * directory a later subcommand runs in is bash's `pwd -P` there, or the engine treats it as unknown
 * because bash's logical and physical `cd` really disagree.
 */
describe('cd lands where bash lands (real symlinks)', () => {
  let root = '';
  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), 'efferent-cd-diff-')));
    const project = path.join(root, 'proj');
    mkdirSync(path.join(project, 'sub', 'deep'), { recursive: true });
    mkdirSync(path.join(root, 'outside', 'proj'), { recursive: true });
    symlinkSync('.', path.join(project, 'self'));
    symlinkSync('..', path.join(project, 'up'));
    symlinkSync('sub/deep', path.join(project, 'deep'));
    symlinkSync('deep', path.join(project, 'chain'));
    symlinkSync(path.join(root, 'outside'), path.join(project, 'out'));
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it.skipIf(!bash)(
    'for every link x cd form',
    async () => {
      await loadShellParser();
      const project = path.join(root, 'proj');
      const forms = ['', '-P ', '-L '];
      const operands = (link: string) => [
        link,
        `${link}/`,
        `${link}/..`,
        `${link}/../..`,
        `./${link}//..`,
        `${link}/./..`,
        `${link}/../sub`,
        `sub/../${link}`,
      ];
      let compared = 0;
      let unknown = 0;
      for (const link of ['self', 'up', 'deep', 'chain', 'out', 'sub'])
        for (const form of forms)
          for (const operand of operands(link)) {
            const cd = `cd ${form}${operand}`;
            const real = spawnSync('bash', ['--norc', '--noprofile', '-c', `${cd} 2>/dev/null && pwd -P`], {
              cwd: project,
              env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PWD: project },
              encoding: 'utf8',
            });
            if (real.status !== 0) continue;
            const analysis = analyzeCommand(`${cd} && pwd`, { cwd: project });
            if (analysis.kind !== 'analyzed') throw new Error(`${cd}: ${analysis.kind}`);
            const after = analysis.subcommands[1]?.cwd ?? null;
            const resolved =
              after === null ? undefined : canonicalizePath(after, { cwd: project, home: root }, fsRealpath);
            if (resolved === undefined || isUnresolvable(resolved)) {
              // Unknown only when bash's two kinds of cd really go to different places.
              const logical = spawnSync(
                'bash',
                ['--norc', '--noprofile', '-c', `cd -L ${operand} && pwd -P`],
                { cwd: project, env: { PWD: project }, encoding: 'utf8' },
              ).stdout;
              const physical = spawnSync(
                'bash',
                ['--norc', '--noprofile', '-c', `cd -P ${operand} && pwd -P`],
                { cwd: project, env: { PWD: project }, encoding: 'utf8' },
              ).stdout;
              expect(logical, cd).not.toBe(physical);
              unknown++;
              continue;
            }
            expect(resolved.physical, cd).toBe(real.stdout.trim());
            compared++;
          }
      expect(compared).toBeGreaterThan(60);
      expect(unknown).toBeGreaterThan(10);
    },
    120_000,
  );
});
