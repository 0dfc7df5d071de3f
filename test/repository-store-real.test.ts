import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
 * The history a working directory's `.git` makes git read (class `repository-config-paths`,
 * docs/decisions/security-repository-config-paths.md). A `.git` symbolic link or gitdir file to
 * another repository of the user's, an `objects` link, an `alternates` entry or a planted
 * worktree gitdir whose `commondir` leads out made `git log -p` and `git show HEAD:secret.txt`
 * print that repository, allowed as read-only in the project.
 */

const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, stdio: 'pipe', encoding: 'utf8', env });

let root = '';
let options: CheckOptions;
const layouts = new Map<string, string>();

/** One project directory per way of leading git to the private repository. */
const hostile: Record<string, (project: string, privateGit: string) => void> = {
  'a .git symbolic link': (project, privateGit) => symlinkSync(privateGit, join(project, '.git')),
  'a gitdir file': (project, privateGit) => writeFileSync(join(project, '.git'), `gitdir: ${privateGit}\n`),
  'an objects link': (project, privateGit) => {
    git(project, 'init', '-q');
    rmSync(join(project, '.git', 'objects'), { recursive: true });
    symlinkSync(join(privateGit, 'objects'), join(project, '.git', 'objects'));
    git(project, 'update-ref', 'refs/heads/main', git(join(privateGit, '..'), 'rev-parse', 'HEAD').trim());
  },
  'an alternates entry': (project, privateGit) => {
    git(project, 'init', '-q');
    writeFileSync(join(project, '.git', 'objects', 'info', 'alternates'), `${join(privateGit, 'objects')}\n`);
  },
  'a planted worktree gitdir': (project, privateGit) => {
    const fake = join(project, 'fake');
    mkdirSync(join(fake, 'refs'), { recursive: true });
    writeFileSync(join(fake, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(fake, 'commondir'), `${privateGit}\n`);
    writeFileSync(join(fake, 'gitdir'), `${join(project, '.git')}\n`);
    writeFileSync(join(project, '.git'), `gitdir: ${fake}\n`);
  },
};

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-store-')));
  const privateRepo = join(root, 'home', 'private');
  mkdirSync(privateRepo, { recursive: true });
  git(privateRepo, 'init', '-q', '-b', 'main');
  writeFileSync(join(privateRepo, 'secret.txt'), 'PRIVATE CONTENT\n');
  git(privateRepo, 'add', 'secret.txt');
  git(privateRepo, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'private');
  for (const [name, build] of Object.entries(hostile)) {
    const project = join(root, name.replace(/\W+/g, '-'));
    mkdirSync(project);
    build(project, join(privateRepo, '.git'));
    layouts.set(name, project);
  }
  // Legitimate layouts: a linked worktree of a repository elsewhere, and a package of a monorepo.
  const main = join(root, 'main');
  mkdirSync(main);
  git(main, 'init', '-q', '-b', 'main');
  writeFileSync(join(main, 'a.txt'), 'a\n');
  git(main, 'add', 'a.txt');
  git(main, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'a');
  git(main, 'worktree', 'add', '-q', join(root, 'worktree'), '-b', 'feature');
  mkdirSync(join(main, 'packages', 'app'), { recursive: true });
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: join(root, 'home'), ...(shell ? { shell } : {}) };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const decide = (command: string, cwd: string) =>
  checkPermissionCase(
    {
      tool: 'Bash',
      input: { command },
      cwd,
      home: join(root, 'home'),
      mode: 'default',
      rules: { allow: [], deny: [], ask: [] },
    },
    options,
  );

const readOnlyGit = [
  'git log -p',
  'git show HEAD:secret.txt',
  'git log --all --oneline',
  'git status',
  'git grep PRIVATE HEAD',
];

describe('repository stores: the history a working directory names is a read of the command (generated)', () => {
  it('git prints the private repository through each layout (the attack is real)', () => {
    for (const [name, project] of layouts) {
      const shown = execFileSync('bash', ['-c', 'git log -p --all 2>&1; git show 5e22 2>&1; true'], {
        cwd: project,
        encoding: 'utf8',
        env,
      });
      if (name === 'an alternates entry')
        expect(git(project, 'cat-file', '--batch-all-objects', '--batch-check')).toMatch(/blob/);
      else expect(shown, name).toContain('PRIVATE CONTENT');
    }
  });

  it('never allows a read-only git call in a project whose .git leads to another repository', async () => {
    let count = 0;
    for (const [name, project] of layouts)
      for (const command of readOnlyGit) {
        const result = await decide(command, project);
        expect(result.behavior, `${name}: ${command}`).not.toBe('allow');
        expect(result.message, command).toMatch(/\.$/);
        count++;
      }
    expect(count).toBe(Object.keys(hostile).length * readOnlyGit.length);
  });

  it('keeps a linked worktree and a monorepo package allowed', async () => {
    for (const command of ['git log -p', 'git status', 'git show HEAD:a.txt']) {
      expect((await decide(command, join(root, 'worktree'))).behavior, `worktree: ${command}`).toBe('allow');
      expect(
        (await decide(command, join(root, 'main', 'packages', 'app'))).behavior,
        `package: ${command}`,
      ).toBe('allow');
    }
  });
});
