import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../../core/index.ts';
import { getAllBaseTools } from '../../../registry/index.ts';
import { type CheckOptions, checkPermissionCase, loadDefaultShellAnalyzer } from '../../index.ts';

let options: CheckOptions;
let project: string;
let staging: string;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-archive-')));
  staging = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-archive-staging-')));
  options = { tools: getAllBaseTools(), defaultHome: staging, ...(shell ? { shell } : {}) };
});
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(staging, { recursive: true, force: true });
});

const rules = ['Bash(tar *)', 'Bash(bsdtar *)', 'Bash(unzip *)'];
const modes: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions'];
const decide = (command: string, mode: PermissionMode) =>
  checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd: project, mode, rules: { allow: rules, deny: [], ask: [] } },
    options,
  );

/** Builds archives of one member in the project: NAME.tar, NAME.tgz and NAME.zip. */
function archives(name: string, member: string): void {
  const source = join(staging, name);
  mkdirSync(dirname(join(source, member)), { recursive: true });
  writeFileSync(join(source, member), 'pwned\n');
  execFileSync('tar', ['-cf', join(project, `${name}.tar`), '-C', source, member]);
  execFileSync('tar', ['-czf', join(project, `${name}.tgz`), '-C', source, member]);
  execFileSync('python3', [
    '-c',
    'import sys,zipfile\nz=zipfile.ZipFile(sys.argv[1],"w")\nz.write(sys.argv[2],sys.argv[3])\nz.close()',
    join(project, `${name}.zip`),
    join(source, member),
    member,
  ]);
}

const members = [
  '.claude/settings.json',
  '.envrc',
  'CLAUDE.md',
  '.husky/pre-commit',
  'sub/.vscode/settings.json',
];
const spellings = [
  'tar -xf A.tar',
  'tar xf A.tar',
  'tar -xvf A.tar',
  'tar -x -f A.tar',
  'tar --extract --file=A.tar',
  'tar -xzf A.tgz',
  'tar xzf A.tgz',
  'bsdtar -xf A.tar',
  'unzip A.zip',
  'unzip -o A.zip',
  'unzip -d out A.zip',
  'tar -xf A.tar -C out',
];

describe('an archive extracted without naming its members', () => {
  it('real tar writes a protected member no word of the command names', () => {
    archives('real', '.claude/settings.json');
    const where = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-archive-real-')));
    try {
      execFileSync('tar', ['-xf', join(project, 'real.tar')], { cwd: where });
      expect(existsSync(join(where, '.claude/settings.json'))).toBe(true);
    } finally {
      rmSync(where, { recursive: true, force: true });
    }
  });

  it('asks for every spelling, archive kind and protected member, in every mode', async () => {
    let count = 0;
    for (const [index, member] of members.entries()) {
      archives(`m${index}`, member);
      for (const spelling of spellings)
        for (const mode of modes) {
          const command = spelling.replace('A', `m${index}`);
          expect((await decide(command, mode)).behavior, `${mode}: ${command} (${member})`).not.toBe('allow');
          count++;
        }
    }
    expect(count).toBe(180);
  });

  it('keeps archives of ordinary files and listings allowed', async () => {
    archives('plain', 'src/b.ts');
    archives('evil', '.envrc');
    for (const command of [
      'tar -xf plain.tar',
      'tar xzf plain.tgz',
      'unzip plain.zip',
      'tar -tf evil.tar',
      'unzip -l evil.zip',
    ])
      for (const mode of modes)
        expect((await decide(command, mode)).behavior, `${mode}: ${command}`).toBe('allow');
  });
});
