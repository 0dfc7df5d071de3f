import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configConcern, resetRepositoryGuard } from '../../sandbox/repository-guard.ts';
import { probeSandbox, removeAllPlaceholders } from '../shared/process/sandbox.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { callTool, makeShellProject, type ShellProject } from '../shared/process/test-shell.ts';
import { createBashTool } from './bash.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;
const sandboxed = createBashTool({ sandbox: 'required' });

/** Host git as a user runs it: their defaults (no system or global config), nothing turned off. */
function hostGit(cwd: string, args: readonly string[]): void {
  spawnSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=t', ...args], {
    cwd,
    env: { PATH: process.env['PATH'], HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: 'ignore',
    timeout: 20_000,
  });
}

/**
 * One way a command can leave a repository behind that runs code: the command (with MARKER standing
 * for a file the payload touches), where the user's git then runs, and with which arguments.
 */
interface AttemptShape {
  name: string;
  command: string;
  gitIn: string;
  gitArgs: readonly string[];
  /** True when the sandbox cannot even create it (prevention), else it is moved aside afterwards. */
  prevented?: boolean;
}

const evilConfig = String.raw`[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch MARKER; false\"\n`;
/** A bare layout that declares a work tree: `git status` inside it then runs fsmonitor too. */
const evilBareConfig = String.raw`[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch MARKER; false\"\n`;
const hook = String.raw`#!/bin/sh\ntouch MARKER\n`;

const shapes: readonly AttemptShape[] = [
  {
    name: 'a repository at the root (git init, then config)',
    command: `git init -q . ; printf "${evilConfig}" >> .git/config`,
    gitIn: '.',
    gitArgs: ['status'],
    prevented: true,
  },
  {
    name: 'a hand-made .git at the root',
    command: `mkdir -p .git/objects .git/refs; echo "ref: refs/heads/main" > .git/HEAD; printf "${evilConfig}" > .git/config`,
    gitIn: '.',
    gitArgs: ['status'],
    prevented: true,
  },
  {
    name: 'a .git file at the root naming a repository in a subfolder',
    command: `git init -q --bare .r; printf "${evilConfig}" > .r/config; rm -rf .git; echo "gitdir: .r" > .git`,
    gitIn: '.',
    gitArgs: ['status'],
  },
  {
    name: 'a nested repository with program-naming config',
    command: `git init -q sub && printf "${evilConfig}" >> sub/.git/config`,
    gitIn: 'sub',
    gitArgs: ['status'],
  },
  {
    name: 'a nested repository with a hook',
    command: `git init -q sub && printf "${hook}" > sub/.git/hooks/pre-commit && chmod +x sub/.git/hooks/pre-commit`,
    gitIn: 'sub',
    gitArgs: ['commit', '--allow-empty', '-qm', 'x'],
  },
  {
    name: 'a repository five levels down (past the nested-repository search)',
    command: `git init -q a/b/c/d/e && printf "${evilConfig}" >> a/b/c/d/e/.git/config`,
    gitIn: 'a/b/c/d/e',
    gitArgs: ['status'],
  },
  {
    name: 'a bare-repository layout in a folder',
    command: `git init -q --bare tools && printf "${evilBareConfig}" > tools/config`,
    gitIn: 'tools',
    gitArgs: ['status'],
  },
  {
    name: 'a bare-repository layout at the root itself',
    command: `git init -q --bare . && printf "${evilBareConfig}" > config`,
    gitIn: '.',
    gitArgs: ['status'],
  },
  {
    name: 'a .git file naming a repository elsewhere in the project',
    command: `git init -q --bare .hidden/r && printf "${evilConfig}" > .hidden/r/config && mkdir -p sub && echo "gitdir: ../.hidden/r" > sub/.git`,
    gitIn: 'sub',
    gitArgs: ['status'],
  },
  {
    name: 'a .git link naming a repository elsewhere in the project',
    command: `git init -q --bare .hidden/r && printf "${evilConfig}" > .hidden/r/config && mkdir -p sub && ln -s ../.hidden/r sub/.git`,
    gitIn: 'sub',
    gitArgs: ['status'],
  },
  {
    name: 'a nested repository whose config includes another file',
    command: `git init -q sub && printf "${evilConfig}" > inc && printf "[include]\\n\\tpath = ../../inc\\n" >> sub/.git/config`,
    gitIn: 'sub',
    gitArgs: ['status'],
  },
  {
    name: 'a nested repository with a submodule git directory that names a program',
    command: `git init -q sub && git init -q --bare sub/.git/modules/m && printf "${evilConfig}" > sub/.git/modules/m/config && mkdir -p sub/m && echo "gitdir: ../.git/modules/m" > sub/m/.git`,
    gitIn: 'sub/m',
    gitArgs: ['status'],
  },
];

describe(`the sandbox and repositories a command creates${skipReason}`, () => {
  let project: ShellProject | undefined;
  const scratch: string[] = [];

  afterEach(async () => {
    removeAllPlaceholders();
    resetRepositoryGuard();
    await project?.cleanup();
    project = undefined;
    for (const path of scratch.splice(0)) rmSync(path, { recursive: true, force: true });
  });

  function markerFolder(): string {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-marker-')));
    scratch.push(folder);
    return folder;
  }

  async function run(command: string, tool = sandboxed) {
    project ??= makeShellProject();
    const { result } = await callTool<ShellOutput>(tool, { command, timeout: 60_000 }, project.context);
    return { data: result.data, text: `${result.data.stdout}${result.data.stderr}` };
  }

  for (const shape of shapes) {
    it.skipIf(!availability.available)(`${shape.name}: plain bash makes git run it`, () => {
      const folder = markerFolder();
      const root = join(folder, 'project');
      mkdirSync(root);
      const marker = join(folder, 'ran');
      spawnSync('bash', ['-c', shape.command.replaceAll('MARKER', marker)], { cwd: root, stdio: 'ignore' });
      hostGit(join(root, shape.gitIn), shape.gitArgs);
      expect(existsSync(marker)).toBe(true);
    });

    it.skipIf(!availability.available)(
      `${shape.name}: the sandboxed command leaves nothing git runs`,
      async () => {
        const marker = join(markerFolder(), 'ran');
        const { data, text } = await run(shape.command.replaceAll('MARKER', marker));
        const moved = (data.notes ?? []).filter((note) => note.includes('moved it to'));
        if (shape.prevented) expect(text).toMatch(/Read-only file system|cannot|Permission denied/i);
        else expect(moved.length).toBeGreaterThan(0);
        removeAllPlaceholders();
        const root = (project as ShellProject).root;
        const gitIn = join(root, shape.gitIn);
        if (existsSync(gitIn)) hostGit(gitIn, shape.gitArgs);
        hostGit(root, ['status']);
        expect(existsSync(marker)).toBe(false);
        // What was moved aside is kept for the user, with where it came from.
        for (const note of moved) {
          const where = /moved it to (\S+) so/.exec(note)?.[1] as string;
          expect(readFileSync(join(where, 'ORIGIN'), 'utf8')).toContain(root);
        }
      },
    );
  }

  it.skipIf(!availability.available)(
    'catches a change made in a later call to a repository made earlier',
    async () => {
      const marker = join(markerFolder(), 'ran');
      const first = await run('git init -q sub && echo made');
      expect(first.data.stdout).toBe('made\n');
      expect(first.data.notes ?? []).toEqual([]);
      await run(`printf "${evilConfig.replace('MARKER', marker)}" >> sub/.git/config`);
      removeAllPlaceholders();
      hostGit(join((project as ShellProject).root, 'sub'), ['status']);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it.skipIf(!availability.available)(
    'everyday commands in a plain folder work and leave no notes',
    async () => {
      const npm = await run('npm init -y >/dev/null && touch a && mkdir -p src && echo ok');
      expect(npm.data.exitCode).toBe(0);
      expect(npm.data.stdout).toBe('ok\n');
      expect(npm.data.notes ?? []).toEqual([]);
      const root = (project as ShellProject).root;
      expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name).toBe('project');
      // The cover that kept .git from being created is gone once calls stop.
      removeAllPlaceholders();
      expect(readdirSync(root).sort()).toEqual(['a', 'package.json', 'src']);
    },
  );

  it.skipIf(!availability.available)(
    'a sandboxed git init at the root fails and says so; nothing is left',
    async () => {
      const { data, text } = await run('git init');
      expect(data.exitCode).not.toBe(0);
      expect(text).toMatch(/Read-only file system|Permission denied|cannot/i);
      removeAllPlaceholders();
      expect(existsSync(join((project as ShellProject).root, '.git'))).toBe(false);
    },
  );

  it.skipIf(!availability.available)(
    'a repository the user made outside the sandbox works inside it',
    async () => {
      project = makeShellProject();
      execFileSync('git', ['init', '-q'], { cwd: project.root });
      const { data } = await run(
        'echo a > a && git add a && git -c user.email=t@e -c user.name=t commit -qm one && git status --short && git log --oneline | wc -l',
      );
      expect(data.exitCode).toBe(0);
      expect(data.stdout.trim()).toBe('1');
      expect(data.notes ?? []).toEqual([]);
    },
  );

  it.skipIf(!availability.available)(
    'keeps repositories git itself creates in subfolders (init, clone)',
    async () => {
      project = makeShellProject();
      const upstream = join(project.root, 'upstream');
      execFileSync('git', ['init', '-q', upstream]);
      execFileSync('git', [
        '-C',
        upstream,
        '-c',
        'user.email=t@e',
        '-c',
        'user.name=t',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        'one',
      ]);
      const { data } = await run(
        'git init -q fresh && git -C fresh config user.name Someone && git clone -q upstream vendor/copy && git -C vendor/copy remote add mirror https://example.com/r.git && echo done',
      );
      expect(data.stdout).toBe('done\n');
      expect(data.notes ?? []).toEqual([]);
      expect(existsSync(join(project.root, 'fresh/.git/config'))).toBe(true);
      expect(
        execFileSync('git', ['-C', join(project.root, 'vendor/copy'), 'log', '--oneline'], {
          encoding: 'utf8',
        }),
      ).toContain('one');
    },
  );
});

describe('what a repository git creates may configure', () => {
  it('allows the keys git init and git clone write', () => {
    const cloned =
      '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n' +
      '[remote "origin"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n' +
      '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\tname = "A Person"\n';
    expect(configConcern(cloned)).toBeUndefined();
    expect(configConcern('[remote "o"]\n\turl = git@github.com:a/b.git\n')).toBeUndefined();
  });

  it.each([
    ['[core]\n\tfsmonitor = x\n', /core\.fsmonitor/],
    ['[Core]\n\thooksPath = .h\n', /core\.hookspath/],
    ['[include]\n\tpath = x\n', /include\.path/],
    ['[remote "o"]\n\turl = ext::sh -c x\n', /not an ordinary transport/],
    ['[remote "o"]\n\turl = -oProxyCommand=x:y\n', /not an ordinary transport/],
    ['[core.x]\n\tbare = false\n', /section spelling/],
    ['[core]\n\tbare = fa\\\nlse\n', /quoting|could not be read/],
    ['fsmonitor = x\n', /could not be read/],
    ['[diff "x"]\n\ttextconv = x\n', /diff\.\*\.textconv/],
  ])('refuses %j', (text, concern) => {
    expect(configConcern(text)).toMatch(concern);
  });
});
