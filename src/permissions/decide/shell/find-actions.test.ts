import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckOptions, checkPermissionCase, loadDefaultShellAnalyzer } from '../../index.ts';
import type { PermissionMode } from '../../../core/index.ts';
import { getAllBaseTools } from '../../../registry/index.ts';

let options: CheckOptions;
let project: string;

/** A project as a clone leaves it, with the protected entries a user's session relies on. */
function makeProject(root: string): void {
  mkdirSync(join(root, '.claude'), { recursive: true });
  mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(root, '.vscode'), { recursive: true });
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(join(root, 'build'), { recursive: true });
  writeFileSync(join(root, '.claude', 'settings.json'), '{"permissions":{"deny":["Bash(curl:*)"]}}\n');
  writeFileSync(join(root, '.git', 'hooks', 'pre-commit.sample'), '#!/bin/sh\n');
  writeFileSync(join(root, '.git', 'config'), '[core]\n\tbare = false\n');
  writeFileSync(join(root, '.vscode', 'settings.json'), '{}\n');
  writeFileSync(join(root, 'CLAUDE.md'), '# notes\n');
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'src', 'b.pyc'), 'x');
  writeFileSync(join(root, 'build', 'out.log'), 'x');
}

beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: '/home/user', ...(shell ? { shell } : {}) };
  project = mkdtempSync(join(tmpdir(), 'efferent-find-actions-'));
  makeProject(project);
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

const decide = (command: string, mode: PermissionMode, allow: string[] = []) =>
  checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd: project, mode, rules: { allow, deny: [], ask: [] } },
    options,
  );

describe('the attack is real: find changes protected files it never names', () => {
  it("find . -name '*.json' -exec sed -i … rewrites .claude/settings.json", () => {
    const scratch = mkdtempSync(join(tmpdir(), 'efferent-find-real-'));
    try {
      makeProject(scratch);
      execFileSync('find', ['.', '-name', '*.json', '-exec', 'sed', '-i', 's/deny/allow/', '{}', '+'], {
        cwd: scratch,
      });
      expect(readFileSync(join(scratch, '.claude', 'settings.json'), 'utf8')).toContain('"allow"');
      execFileSync('find', ['-name', 'pre-commit.*', '-exec', 'chmod', '+x', '{}', ';'], { cwd: scratch });
      expect(
        execFileSync('stat', ['-c', '%A', join(scratch, '.git', 'hooks', 'pre-commit.sample')]).toString(),
      ).toMatch(/x/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

/** Expressions that pick out a protected entry of the fixture (and other files too). */
const selectors: readonly string[] = [
  "-name '*.json'",
  "-iname '*.JSON'",
  "-name 'settings.*'",
  "-path '*claude*'",
  '-type f',
  "-name 'pre-commit*'",
  "! -name '*.ts'",
  "-not -name '*.ts'",
  "\\( -name '*.json' -o -name '*.md' \\)",
  '-newer src/a.ts',
  "-name 'C*.md'",
  "-path ./src -prune -o -name '*.json'",
  '',
];
/** Actions that change what they are given. */
const actions: readonly string[] = [
  '-delete',
  "-exec sed -i 's/deny/allow/' {} +",
  '-exec chmod +x {} \\;',
  '-execdir rm {} \\;',
  '-ok rm {} \\;',
  '-exec truncate -s0 {} +',
  '-exec /bin/rm -f {} +',
];
const starts: readonly string[] = ['.', '', './', 'PROJECT'];
const wrappers: readonly string[] = ['', 'timeout 60 ', 'nice -n 5 ', 'env A=1 '];
const modes: readonly PermissionMode[] = ['bypassPermissions', 'default', 'acceptEdits'];

describe('a find that changes files is judged on the protected entries its expression may reach', () => {
  it(`no selector × action × start × wrapper × mode is allowed (${selectors.length * actions.length * starts.length * wrappers.length * modes.length} decisions)`, async () => {
    const allowed: string[] = [];
    for (const selector of selectors)
      for (const action of actions)
        for (const start of starts)
          for (const wrapper of wrappers)
            for (const mode of modes) {
              const where = start === 'PROJECT' ? project : start;
              const command = `${wrapper}find ${where} ${selector} ${action}`.replace(/ +/g, ' ');
              const decision = await decide(command, mode, ['Bash(find *)', 'Bash(timeout *)']);
              if (decision.behavior === 'allow') allowed.push(`${mode}: ${command}`);
            }
    expect(allowed).toEqual([]);
  });

  it('a starting point only known at run time asks', async () => {
    for (const command of ['find $PWD -name x -delete', 'find "$(pwd)" -type f -exec sed -i s/a/b/ {} +'])
      expect((await decide(command, 'bypassPermissions')).behavior, command).not.toBe('allow');
  });
});

describe('everyday finds stay allowed', () => {
  const everyday: readonly string[] = [
    "find . -name '*.pyc' -delete",
    "find -name '*.pyc' -delete",
    "find . -name '*.ts' -exec sed -i s/a/b/ {} +",
    'find src -type f -delete',
    'find build -delete',
    "find . -type d -name node_modules -prune -o -name '*.log' -delete",
    "find . -name '*.json' -exec grep deny {} +",
    "find . -name '*.json' -print",
    "find . -name '*.orig' -delete",
    "find . -type f -name '*.log' -exec rm {} +",
  ];
  for (const command of everyday)
    it(command, async () => {
      expect((await decide(command, 'bypassPermissions')).behavior).toBe('allow');
    });
});
