import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';

/**
 * Differential test against real programs: each command below really prints the content of a file
 * its words never name (run by real bash in a temporary project with a real git repository). The
 * engine, with that file denied by `Read(./.env)`, must not allow any of them; and the same spelling
 * without the indirection stays what it was.
 */

const secret = 'SECRET_TOKEN_4f1c';
let root: string;
let home: string;
let options: CheckOptions;
let blob: string;

function bash(command: string, cwd = root): { stdout: string; stderr: string; status: number | null } {
  const result = spawnSync('bash', ['-c', command], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C' },
    timeout: 20_000,
  });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-indirect-')));
  home = join(root, 'home');
  mkdirSync(home);
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, '.env'), `${secret}\n`);
  writeFileSync(join(root, 'README.md'), 'hello\n');
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'list'), '.env\n');
  writeFileSync(join(root, 'list0'), '.env\0');
  writeFileSync(join(root, 'resp'), '.env\n');
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        HOME: home,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'a',
        GIT_AUTHOR_EMAIL: 'a@b',
        GIT_COMMITTER_NAME: 'a',
        GIT_COMMITTER_EMAIL: 'a@b',
      },
    }).trim();
  git('init', '-q');
  git('add', '.env', 'README.md', 'src/a.ts');
  git('commit', '-qm', 'one');
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 2;\n');
  git('commit', '-qam', 'two');
  // The user changes the tracked .env after the last commit.
  writeFileSync(join(root, '.env'), `${secret}\nSECOND_${secret}\n`);
  blob = git('rev-parse', 'HEAD:.env');
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const decide = (command: string, deny: string[]) =>
  checkPermissionCase(
    {
      tool: 'Bash',
      input: { command },
      cwd: root,
      home,
      mode: 'default',
      rules: { allow: [], deny, ask: [] },
    },
    options,
  );

/** Commands that print the secret although no word names `.env` (`BLOB` is its object id). */
const leaking = [
  'wc --files0-from=list0 -c',
  'wc --files0=list0 -c',
  'du --files0-from list0 -b',
  'sort --files0-from=list0',
  'xargs -a list cat',
  'xargs -a .env',
  'xargs -alist cat',
  'xargs --arg-file=list cat',
  'xargs --arg=list cat',
  'timeout 5 xargs --arg list nice cat',
  'cat list | xargs cat',
  'cat list | xargs -I{} grep -h . {}',
  'strings @resp',
  'file -f list',
  'awk \'BEGIN{ARGV[1]=".e" "nv"; ARGC=2} {print}\' README.md',
  'awk \'BEGIN{f=".e" "nv"; while ((getline l < f) > 0) print l}\'',
  'tar -cf - -T list | tar -xOf -',
  'git log -p',
  'git log -S SECRET_TOKEN --oneline',
  'git diff',
  'git diff HEAD',
  'git diff -- "*.env"',
  "git diff -- ':(glob)**/.e*'",
  'git show HEAD~1',
  'git show --stat BLOB',
  'git show BLOB -- src',
  'git grep SECRET',
  'git grep SECRET BLOB -- src',
  'git cat-file -p BLOB',
  'git cat-file blob BLOB',
  'echo BLOB | git cat-file --batch',
  'git archive HEAD | tar -xOf - .env',
];

describe('indirect reads against real programs', () => {
  it.each(leaking)('%s really shows the secret, and the engine does not allow it', async (template) => {
    const command = template.replaceAll('BLOB', blob);
    const real = bash(command);
    const output = `${real.stdout}${real.stderr}`;
    // wc, du and file print facts about the file, and pickaxe answers whether the secret is in it:
    // what matters is that they opened it.
    const opened = /^(?:wc|du|file) /.test(command)
      ? /\.env/.test(output)
      : command.includes(' -S ')
        ? output.includes('one')
        : output.includes(secret);
    expect(opened, `real output of ${command}: ${output.slice(0, 300)}`).toBe(true);
    const verdict = await decide(command, ['Read(./.env)']);
    expect(verdict.behavior, verdict.message).not.toBe('allow');
  });

  it('xargs --process-slot-var=PATH really changes where the program is looked up', async () => {
    // PATH becomes the slot number: `0/cat` inside the project is what runs.
    mkdirSync(join(root, '0'), { recursive: true });
    writeFileSync(join(root, '0', 'cat'), '#!/bin/sh\necho planted-program-ran\n');
    chmodSync(join(root, '0', 'cat'), 0o755);
    const real = bash('echo README.md | xargs --process-slot-var=PATH cat');
    expect(real.stdout).toContain('planted-program-ran');
    for (const command of [
      'echo README.md | xargs --process-slot-var=PATH cat',
      'echo README.md | xargs --process-slot=PATH cat',
      'env -u PATH cat README.md',
      'env -P 0 cat README.md',
    ]) {
      const verdict = await decide(command, []);
      expect(verdict.behavior, `${command}: ${verdict.message}`).not.toBe('allow');
    }
  });

  it('accepts the abbreviations real getopt accepts, and treats ambiguous ones as too complex', async () => {
    expect(bash('timeout --k=1 5 true').status).toBe(0);
    expect((await decide('timeout --k=1 5 cat README.md', ['Read(./.env)'])).behavior).toBe('allow');
    expect(bash('env --i true').status).not.toBe(0);
    const ambiguous = await decide('env --i cat README.md', []);
    expect(ambiguous.behavior).toBe('ask');
    expect(ambiguous.message).toMatch(/too complex|not known/);
  });

  it.each([
    'cat README.md',
    'git log --oneline',
    'git diff -- src/a.ts',
    'git log -p -- src/a.ts',
    'git show HEAD:src/a.ts',
    'git grep export -- src',
  ])('%s shows no secret and stays allowed', async (command) => {
    const real = bash(command);
    expect(real.stdout).not.toContain(secret);
    const verdict = await decide(command, ['Read(./.env)']);
    expect(verdict.behavior, verdict.message).toBe('allow');
  });
});
