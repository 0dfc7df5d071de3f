import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeSandbox, removeAllPlaceholders } from '../shared/process/sandbox.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { callTool, makeShellProject, type ShellProject } from '../shared/process/test-shell.ts';
import { createBashTool } from './bash.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.email=t@e', '-c', 'user.name=t', '-c', 'protocol.file.allow=always', ...args],
    {
      cwd,
      env: gitEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** The entries `only` of a git directory, recursively: path -> content, link target or "dir". */
function snapshot(gitDirectory: string, relative: string, only: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  let names: string[];
  try {
    names = readdirSync(join(gitDirectory, relative));
  } catch {
    return result;
  }
  for (const name of names) {
    const path = join(relative, name);
    // The test names what must stay put itself, independent of the sandbox's own allowlist.
    if (relative === '' && !only.some((entry) => entry.split('/')[0] === name)) continue;
    const full = join(gitDirectory, path);
    const info = lstatSync(full);
    if (info.isSymbolicLink()) result[path] = `link:${readlinkSync(full)}`;
    else if (info.isDirectory()) {
      result[path] = 'dir';
      Object.assign(result, snapshot(gitDirectory, path, only));
    } else result[path] = readFileSync(full, 'utf8');
  }
  return result;
}

/** The kinds of repository a workspace can hold, each with the git directory the attacks aim at. */
const repositoryKinds = ['top-level', 'nested', 'submodule', 'linked worktree'] as const;
type RepositoryKind = (typeof repositoryKinds)[number];

interface Repository {
  /** Where host git runs (the working tree). */
  worktree: string;
  gitDirectory: string;
  /** Names the attacks target in that git directory. */
  names: readonly string[];
}

function makeRepository(root: string, kind: RepositoryKind): Repository {
  git(root, 'init', '-q');
  writeFileSync(join(root, 'a.txt'), 'a\n');
  git(root, 'add', 'a.txt');
  git(root, 'commit', '-qm', 'one');
  const common = [
    'config',
    'config.worktree',
    'commondir',
    'hooks',
    // info/ itself is writable (gc writes info/refs); the attributes file in it is what matters.
    'info/attributes',
    'modules',
    'branches',
    'remotes',
  ];
  switch (kind) {
    case 'top-level':
      return { worktree: root, gitDirectory: join(root, '.git'), names: common };
    case 'nested': {
      const nested = join(root, 'packages', 'inner');
      mkdirSync(nested, { recursive: true });
      git(nested, 'init', '-q');
      git(nested, 'commit', '-q', '--allow-empty', '-m', 'inner');
      return { worktree: nested, gitDirectory: join(nested, '.git'), names: common };
    }
    case 'submodule': {
      const upstream = join(root, '..', 'upstream');
      mkdirSync(upstream);
      git(upstream, 'init', '-q');
      git(upstream, 'commit', '-q', '--allow-empty', '-m', 'up');
      git(root, 'submodule', 'add', '-q', upstream, 'lib');
      return {
        worktree: join(root, 'lib'),
        gitDirectory: join(root, '.git', 'modules', 'lib'),
        names: common,
      };
    }
    case 'linked worktree':
      git(root, 'worktree', 'add', '-q', join(root, 'wt'));
      return {
        worktree: join(root, 'wt'),
        gitDirectory: join(root, '.git', 'worktrees', 'wt'),
        names: ['config.worktree', 'commondir', 'gitdir'],
      };
  }
}

/** Shell lines that each try to change or plant `name` in `gitDirectory` (all must fail). */
function attacks(gitDirectory: string, name: string, marker: string): string[] {
  const path = join(gitDirectory, name);
  const payload = `[core]\\n\\tfsmonitor = \\"touch ${marker}; false\\"\\n`;
  const evil = join(gitDirectory, '..', `evil-${name}`);
  return [
    // Write into it (a file gets config appended, a folder a hook-like file).
    `if [ -d '${path}' ]; then printf '#!/bin/sh\\ntouch ${marker}\\n' > '${path}/pre-commit'; else printf "${payload}" >> '${path}'; fi`,
    // Rename it away and put another in its place.
    `mv '${path}' '${path}.old'; printf "${payload}" > '${path}'`,
    // Replace it with a link to something the command controls.
    `mkdir -p '${evil}' && printf "${payload}" > '${evil}/config'; rm -rf '${path}'; ln -s '${evil}' '${path}'`,
    // Remove it.
    `rm -rf '${path}'`,
  ];
}

describe.skipIf(!availability.available)(`Sandboxed commands and git directories${skipReason}`, () => {
  const bash = createBashTool({ sandbox: 'required', killGraceMs: 200 });
  let project: ShellProject | undefined;
  afterEach(async () => {
    await project?.cleanup();
    project = undefined;
  });

  // Generated: repository kind x (entry present | missing) x protected name x 4 ways to change it.
  const variants = repositoryKinds.flatMap((kind) =>
    (['present', 'missing'] as const).map((state) => ({ kind, state })),
  );
  let attackCount = 0;
  it.each(variants)(
    '$kind repository, entries $state: only the allowlisted state changes',
    async ({ kind, state }) => {
      project = makeShellProject();
      const repository = makeRepository(project.root, kind);
      const { gitDirectory } = repository;
      const names =
        state === 'present'
          ? repository.names
          : // A linked worktree's git directory has only config.worktree to read of these.
            repository.names.filter((name) => kind !== 'linked worktree' || name === 'config.worktree');
      for (const name of names) {
        const path = join(gitDirectory, name);
        if (state === 'missing') rmSync(path, { recursive: true, force: true });
        else if (!existsSync(path)) {
          if (['hooks', 'info', 'modules', 'branches', 'remotes'].includes(name)) mkdirSync(path);
          else if (name === 'commondir') writeFileSync(path, kind === 'linked worktree' ? '../..\n' : '.\n');
          else if (name !== 'gitdir') writeFileSync(path, '');
        }
      }
      const before = snapshot(gitDirectory, '', names);
      const marker = join(project.home, 'fsmonitor-ran');
      const lines = names.flatMap((name) => attacks(gitDirectory, name, marker));
      attackCount += lines.length;
      // One call: every attack, then what a commit needs (still writable in the same repository),
      // its errors kept apart from the attacks' in the sandbox's private /tmp.
      const commit = `cd '${repository.worktree}' && { echo b > b.txt && git add b.txt && git -c user.email=t@e -c user.name=t commit -qm two && echo "commits=$(git log --oneline | wc -l)"; } 2>/tmp/commit-errors; echo "commit-errors=$(cat /tmp/commit-errors)"`;
      const { result } = await callTool<ShellOutput>(
        bash,
        { command: [...lines, commit].join('\n') },
        project.context,
      );
      expect(result.data.stdout).toContain('commit-errors=\n');
      expect(Number(/commits=(\d+)/.exec(result.data.stdout)?.[1])).toBeGreaterThanOrEqual(2);
      // Covers of missing names outlive the call by a grace period; past it they are gone, and
      // nothing else was left in the git directory once the call ended.
      removeAllPlaceholders();
      expect(snapshot(gitDirectory, '', names)).toEqual(before);
      // The user's next git runs nothing the command planted.
      execFileSync('git', ['status', '--short'], { cwd: repository.worktree, env: gitEnv, stdio: 'ignore' });
      expect(existsSync(marker)).toBe(false);
    },
  );

  it('counts the generated git attacks', () => {
    // 3 kinds x 2 states x 8 names, plus a linked worktree's 3 (present) and 1 (missing); 4 ways each.
    expect(attackCount).toBe((3 * 2 * 8 + 3 + 1) * 4);
  });

  it('keeps the target of a .git link read-only when it lies in the workspace', async () => {
    project = makeShellProject();
    const real = join(project.root, 'store', 'repo.git');
    mkdirSync(join(project.root, 'store'));
    git(project.root, 'init', '-q', '--separate-git-dir', real, join(project.root, 'linked'));
    rmSync(join(project.root, 'linked', '.git'));
    execFileSync('ln', ['-s', real, join(project.root, 'linked', '.git')]);
    const before = readFileSync(join(real, 'config'), 'utf8');
    const { result } = await callTool<ShellOutput>(
      bash,
      { command: `printf '[core]\\n\\tfsmonitor = evil\\n' >> linked/.git/config` },
      project.context,
    );
    expect(result.data.exitCode).not.toBe(0);
    expect(readFileSync(join(real, 'config'), 'utf8')).toBe(before);
  });
});

describe.skipIf(!availability.available)(`Everyday git inside the sandbox${skipReason}`, () => {
  const bash = createBashTool({ sandbox: 'required', killGraceMs: 200 });
  let project: ShellProject | undefined;
  afterEach(async () => {
    await project?.cleanup();
    project = undefined;
  });

  it('restores a missing .git/info, with its attributes file still impossible to create', async () => {
    project = makeShellProject();
    makeRepository(project.root, 'top-level');
    rmSync(join(project.root, '.git', 'info'), { recursive: true, force: true });
    const { result } = await callTool<ShellOutput>(
      bash,
      { command: `printf '* diff=evil\n' > .git/info/attributes` },
      project.context,
    );
    expect(result.data.exitCode).not.toBe(0);
    removeAllPlaceholders();
    expect(readdirSync(join(project.root, '.git', 'info'))).toEqual([]);
  });

  it('branches, stashes, merges, rebases, tags, cherry-picks, adds worktrees and collects garbage', async () => {
    project = makeShellProject();
    makeRepository(project.root, 'top-level');
    const id = '-c user.email=t@e -c user.name=t';
    const steps = [
      `git checkout -q -b feature`,
      `echo f > f.txt && git add f.txt && git ${id} commit -qm feature`,
      `echo wip >> a.txt && git ${id} stash -q && git ${id} stash pop -q && git checkout -q -- a.txt`,
      `git checkout -q master 2>/dev/null || git checkout -q main`,
      `echo m > m.txt && git add m.txt && git ${id} commit -qm main-change`,
      `git ${id} merge -q --no-edit feature`,
      `git ${id} tag -a v1 -m v1`,
      `git checkout -q -b other HEAD~1 && git ${id} cherry-pick feature >/dev/null && git ${id} rebase -q v1`,
      `git worktree add -q wt-extra && git -C wt-extra status --short`,
      `git gc -q && git fsck --no-progress >/dev/null`,
      `git log --oneline | wc -l`,
    ];
    const { result } = await callTool<ShellOutput>(bash, { command: steps.join(' && ') }, project.context);
    const problems = result.data.stderr
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('hint:'));
    expect(problems).toEqual([]);
    expect(result.data.exitCode).toBe(0);
    expect(Number(result.data.stdout.trim().split('\n').at(-1))).toBeGreaterThanOrEqual(4);
  });
});
