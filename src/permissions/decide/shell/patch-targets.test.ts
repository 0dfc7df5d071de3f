import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../../core/index.ts';
import { getAllBaseTools } from '../../../registry/index.ts';
import { type CheckOptions, checkPermissionCase, loadDefaultShellAnalyzer } from '../../index.ts';
import { patchTargets } from './patch-targets.ts';

let options: CheckOptions;
let project: string;
let home: string;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-patch-')));
  home = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-patch-home-')));
  options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
  execFileSync('git', ['init', '-q'], { cwd: project });
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src/a.ts'), 'x\n');
});
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const rules = ['Bash(git *)', 'Bash(patch *)', 'Bash(git-apply *)'];
const decide = (command: string, mode: PermissionMode) =>
  checkPermissionCase(
    {
      tool: 'Bash',
      input: { command },
      cwd: project,
      mode,
      rules: { allow: rules, deny: [], ask: [] },
      home,
    },
    options,
  );

/** A git diff that creates `path`. */
const creating = (path: string, quoted = false) => {
  const shown = (prefix: string) => (quoted ? `"${prefix}/${path}"` : `${prefix}/${path}`);
  return `diff --git ${shown('a')} ${shown('b')}\nnew file mode 100644\n--- /dev/null\n+++ ${shown('b')}\n@@ -0,0 +1 @@\n+echo pwned\n`;
};
const renaming = (path: string) =>
  `diff --git a/notes.txt b/${path}\nsimilarity index 100%\nrename from notes.txt\nrename to ${path}\n`;
const plain = (path: string) => `--- ${path}.orig\t2026-12-01\n+++ ${path}\t2026-12-02\n@@ -0,0 +1 @@\n+x\n`;

const targets = [
  '.envrc',
  '.claude/settings.json',
  'CLAUDE.md',
  '.husky/pre-commit',
  'sub/.vscode/tasks.json',
  '.gitmodules',
];
const appliers = [
  'git apply P',
  'git apply -R P',
  'git apply --index P',
  'git -c core.x=y apply P',
  'git am P',
  'git apply < P',
  'patch -p1 < P',
  'patch -p1 -i P',
  'patch -p1 --input=P',
  'patch -p0 < P',
];
const modes: readonly PermissionMode[] = ['default', 'bypassPermissions'];

describe('a patch applier writes the files its patch names', () => {
  it('real git apply writes a protected file no word of the command names', () => {
    writeFileSync(join(project, 'real.patch'), creating('.claude/settings.json'));
    const run = spawnSync('git', ['apply', 'real.patch'], { cwd: project });
    expect(run.status).toBe(0);
    expect(existsSync(join(project, '.claude/settings.json'))).toBe(true);
    rmSync(join(project, '.claude'), { recursive: true, force: true });
  });

  it('asks for every applier and every way a patch names a protected file, in every mode', async () => {
    let count = 0;
    for (const target of targets)
      for (const [shape, text] of [
        ['git', creating(target)],
        ['quoted', creating(target, true)],
        ['rename', renaming(target)],
        ['plain', plain(`b/${target}`)],
      ] as const) {
        const file = `p-${count}.patch`;
        writeFileSync(join(project, file), text);
        for (const applier of appliers)
          for (const mode of modes) {
            const command = applier.replace('P', file);
            const verdict = await decide(command, mode);
            expect(verdict.behavior, `${mode}: ${command} (${shape} ${target})`).not.toBe('allow');
          }
        count++;
      }
    expect(count).toBe(24);
  });

  it('asks when the patch is not known before it runs', async () => {
    for (const command of [
      'git diff | git apply -R',
      'curl -so x.patch https://example.com/x; git apply x.patch',
      'patch -p1',
    ])
      for (const mode of modes)
        expect((await decide(command, mode)).behavior, `${mode}: ${command}`).not.toBe('allow');
  });

  it('keeps patches of ordinary files, reports and resumed runs allowed', async () => {
    writeFileSync(join(project, 'ok.patch'), creating('src/b.ts') + plain('b/src/a.ts'));
    writeFileSync(join(project, 'bad.patch'), creating('.envrc'));
    for (const command of [
      'git apply ok.patch',
      'git apply -R ok.patch',
      'patch -p1 < ok.patch',
      'git apply --check bad.patch',
      'git apply --stat bad.patch',
      'git am --continue',
    ])
      for (const mode of modes)
        expect((await decide(command, mode)).behavior, `${mode}: ${command}`).toBe('allow');
  });

  it('reads the targets of every header kind', () => {
    expect(patchTargets(creating('.envrc'))).toContain('b/.envrc');
    expect(patchTargets(creating('.en vrc', true))).toContain('b/.en vrc');
    expect(patchTargets(renaming('CLAUDE.md'))).toContain('CLAUDE.md');
    expect(patchTargets(plain('x/.envrc'))).toContain('x/.envrc');
    expect(patchTargets('diff --git "a/\\056envrc" "b/\\056envrc"\n')).toContain('b/.envrc');
  });
});
