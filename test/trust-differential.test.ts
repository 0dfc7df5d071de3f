import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';

/**
 * Differential test against real bash: for generated spellings of paths (quoting, `~`, `$HOME`,
 * globs, braces, `..`, links), bash says which words a command really gets; whenever one of them is
 * a file outside the working directories, the engine must not let a command allow rule run it.
 */

let root: string;
let project: string;
let home: string;
let options: CheckOptions;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-trust-diff-')));
  project = join(root, 'proj');
  home = join(root, 'home');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(project, 'src/a.ts'), 'a');
  writeFileSync(join(project, 'src/b.ts'), 'b');
  writeFileSync(join(home, '.ssh/id_rsa'), 'secret');
  symlinkSync('/etc', join(project, 'inlink'));
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The words real bash passes to a command, and whether any is a file outside the project. */
function bashWords(args: string): string[] {
  const run = spawnSync('bash', ['-c', `printf '%s\\0' ${args}`], {
    cwd: project,
    env: { PATH: process.env['PATH'], HOME: home },
    encoding: 'utf8',
  });
  return run.stdout.split('\0').filter((word) => word !== '');
}

function outsideWord(words: readonly string[]): string | undefined {
  return words.find((word) => {
    if (word.startsWith('-')) return false;
    const path = isAbsolute(word) ? word : resolve(project, word);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return false;
    }
    return real !== project && !real.startsWith(`${project}/`);
  });
}

const passwdSpellings = [
  '/etc/passwd',
  '/etc/./passwd',
  '//etc//passwd',
  '/et?/passwd',
  '/etc/passw[d]',
  '"/etc/passwd"',
  '/e"tc"/passwd',
  "'/etc'/passwd",
  '\\/etc/passwd',
  '{/etc/passwd,src/a.ts}',
  'inlink/passwd',
  './inlink/passwd',
  '../../../../../../../etc/passwd',
  'src/../../../../../../../etc/passwd',
];
const keySpellings = [
  '~/.ssh/id_rsa',
  '$HOME/.ssh/id_rsa',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash parameter expansion, not a template.
  '${HOME}/.ssh/id_rsa',
  '"$HOME"/.ssh/id_rsa',
  "~/'.ssh'/id_rsa",
  '~/.ssh/id_rs?',
  '~/.ssh/{id_rsa,x}',
  '~/.ssh/*',
];
const insideSpellings = [
  'src/a.ts',
  './src/a.ts',
  '"src/a.ts"',
  'src/*.ts',
  'src/{a,b}.ts',
  'src/../src/b.ts',
];

const commands: Array<{ rule: string; make: (path: string) => string }> = [
  { rule: 'Bash(cat *)', make: (path) => `cat ${path}` },
  { rule: 'Bash(head *)', make: (path) => `head -n 1 ${path}` },
  { rule: 'Bash(grep *)', make: (path) => `grep -h root ${path}` },
  { rule: 'Bash(git diff *)', make: (path) => `git diff --no-index ${path} src/a.ts` },
  { rule: 'Bash(wc *)', make: (path) => `wc -l ${path}` },
  { rule: 'Bash(sort *)', make: (path) => `sort ${path}` },
];

describe('outside reads under allow rules, against real bash expansion (generated)', () => {
  it('never allows a command whose real words name a file outside the project', async () => {
    let outsideCount = 0;
    let insideAllowed = 0;
    const spellings = [...passwdSpellings, ...keySpellings, ...insideSpellings];
    for (const spelling of spellings) {
      const words = bashWords(spelling);
      const outside = outsideWord(words);
      for (const { rule, make } of commands) {
        const command = make(spelling);
        const result = await checkPermissionCase(
          { tool: 'Bash', input: { command }, cwd: project, mode: 'default', rules: { allow: [rule] }, home },
          options,
        );
        if (outside !== undefined) {
          outsideCount++;
          expect(result.behavior, `${command} (bash reads ${outside})`).not.toBe('allow');
        } else if (result.behavior === 'allow') insideAllowed++;
      }
    }
    // Every outside spelling really reaches outside in bash, so each was a real attack.
    expect(outsideCount).toBe((passwdSpellings.length + keySpellings.length) * commands.length);
    // Plain in-project spellings stay allowed (globs and braces may ask: their words are only known at run time).
    expect(insideAllowed).toBeGreaterThanOrEqual(3 * commands.length);
  });
});
