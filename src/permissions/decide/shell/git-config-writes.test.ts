import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../../core/index.ts';
import { getAllBaseTools } from '../../../registry/index.ts';
import { type CheckOptions, checkPermissionCase, loadDefaultShellAnalyzer } from '../../index.ts';
import { gitConfigWrite } from './git-config-writes.ts';

let options: CheckOptions;
let project: string;
let home: string;
/** git with a temporary home and no system configuration: nothing of the machine's leaks in. */
let gitEnv: NodeJS.ProcessEnv;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-gitcfg-write-')));
  home = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-gitcfg-write-home-')));
  options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
  gitEnv = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'a',
    GIT_AUTHOR_EMAIL: 'a@example.com',
    GIT_COMMITTER_NAME: 'a',
    GIT_COMMITTER_EMAIL: 'a@example.com',
  };
  execFileSync('git', ['init', '-q'], { cwd: project, env: gitEnv });
  writeFileSync(join(project, 'a.txt'), 'x\n');
});
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const decide = (command: string, mode: PermissionMode, allow: string[] = []) =>
  checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd: project, mode, rules: { allow, deny: [], ask: [] }, home },
    options,
  );

describe('git commands that write code-running keys into git configuration', () => {
  it('real git: `git config core.hooksPath` makes the next commit run a file of the project', () => {
    mkdirSync(join(project, 'h'), { recursive: true });
    const marker = join(project, 'hook-ran');
    writeFileSync(join(project, 'h/pre-commit'), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    execFileSync('git', ['config', 'core.hooksPath', 'h'], { cwd: project, env: gitEnv });
    execFileSync('git', ['add', 'a.txt'], { cwd: project, env: gitEnv });
    spawnSync('git', ['commit', '-qm', 'x'], { cwd: project, env: gitEnv });
    expect(existsSync(marker)).toBe(true);
    execFileSync('git', ['config', '--unset', 'core.hooksPath'], { cwd: project, env: gitEnv });
    rmSync(join(project, 'h'), { recursive: true, force: true });
  });

  it('real git: `git config core.fsmonitor` makes `git status` run a command', () => {
    const marker = join(project, 'fsmonitor-ran');
    execFileSync('git', ['config', 'core.fsmonitor', `touch '${marker}'; false`], {
      cwd: project,
      env: gitEnv,
    });
    spawnSync('git', ['status', '--short'], { cwd: project, env: gitEnv });
    expect(existsSync(marker)).toBe(true);
    expect(readFileSync(join(project, '.git/config'), 'utf8')).toContain('fsmonitor');
    execFileSync('git', ['config', '--unset', 'core.fsmonitor'], { cwd: project, env: gitEnv });
  });

  const settings = [
    "core.fsmonitor 'touch /tmp/x'",
    'core.hooksPath h',
    "core.pager 'sh x'",
    "core.sshCommand 'sh x'",
    'core.editor ./e.sh',
    "alias.st '!sh x'",
    'diff.x.textconv ./t.sh',
    'filter.x.clean ./c.sh',
    'include.path ../shipped.cfg',
    'includeIf.gitdir:~/.path x.cfg',
    'gpg.program ./g.sh',
    'credential.helper ./h.sh',
    'sequence.editor ./e.sh',
    'core.worktree /home',
    "safe.directory '*'",
    'uploadpack.packObjectsHook ./p.sh',
    "remote.origin.url 'ext::sh -c x'",
  ];
  const spellings = [
    'git config S',
    'git config --local S',
    'git config --global S',
    'git config --add S',
    'git config --replace-all S',
    'git config set S',
    'git -C . config S',
    'git --git-dir=.git config S',
    'git -c color.ui=never config S',
    'git-config S',
    '/usr/bin/git config S',
    'command git config S',
    'env git config S',
    'true && git config S',
  ];
  const modes: ReadonlyArray<[PermissionMode, string[]]> = [
    ['bypassPermissions', []],
    ['acceptEdits', ['Bash(git *)']],
    ['default', ['Bash(git config:*)', 'Bash(git *)']],
  ];

  it(`${settings.length} keys × ${spellings.length} spellings × ${modes.length} modes: none allowed`, async () => {
    const allowed: string[] = [];
    let decided = 0;
    for (const setting of settings)
      for (const spelling of spellings)
        for (const [mode, allow] of modes) {
          const command = spelling.replace('S', setting);
          const decision = await decide(command, mode, allow);
          decided++;
          if (decision.behavior === 'allow') allowed.push(`${mode}: ${command}`);
        }
    expect(allowed).toEqual([]);
    expect(decided).toBe(settings.length * spellings.length * modes.length);
  });

  it('other commands that write such configuration ask in bypassPermissions', async () => {
    const commands = [
      "git remote add o 'ext::sh -c x'",
      "git remote set-url origin 'ext::sh -c x'",
      "git remote set-url --push origin 'ext::sh -c x'",
      "git submodule add 'ext::sh -c x' s",
      'git clone -c core.fsmonitor=./f.sh . sub',
      'git clone --config=core.hooksPath=h . sub',
      'git init --template=tpl sub',
      'git clone --template tpl . sub',
      'git maintenance start',
      'git maintenance register',
      'git config --rename-section x core',
      'git config -e',
      'git config edit',
      'git config --frobnicate a.b c',
    ];
    const allowed: string[] = [];
    for (const command of commands)
      if ((await decide(command, 'bypassPermissions')).behavior === 'allow') allowed.push(command);
    expect(allowed).toEqual([]);
    const decision = await decide('git config core.hooksPath h', 'bypassPermissions');
    expect(decision.behavior).toBe('ask');
    expect(JSON.stringify(decision.trace)).toContain("changes git's configuration");
  });

  it('everyday configuration and reads stay allowed', async () => {
    const commands = [
      'git config user.name Alice',
      "git config user.email 'a@example.com'",
      'git config --global user.email a@example.com',
      'git config pull.rebase true',
      'git config commit.gpgsign true',
      'git config branch.main.remote origin',
      'git config core.autocrlf input',
      'git config --bool core.bare false',
      'git config --get core.pager',
      'git config core.pager',
      'git config --list',
      'git config --show-origin --get-regexp alias',
      'git config get user.name',
      'git config --unset core.hooksPath',
      'git config --remove-section alias',
      'git remote add origin https://example.com/r.git',
      'git remote set-url origin git@example.com:r.git',
      'git remote -v',
      'git submodule add https://example.com/s.git s',
      'git clone https://example.com/r.git r',
      'git init --template= sub',
      'git maintenance run',
    ];
    const asked: string[] = [];
    for (const command of commands)
      if ((await decide(command, 'bypassPermissions')).behavior !== 'allow') asked.push(command);
    expect(asked).toEqual([]);
  });

  it('reads the command as git does', () => {
    expect(gitConfigWrite(['git', 'config', 'core.hooksPath', 'h'])?.change).toContain('hooks');
    expect(gitConfigWrite(['git', 'config', '--get', 'core.hooksPath'])).toBeUndefined();
    expect(gitConfigWrite(['git', 'config', 'core.hooksPath'])).toBeUndefined();
    // A file named with -f is a path of the command, judged as such elsewhere.
    expect(gitConfigWrite(['git', 'config', '-f', 'x.cfg', 'core.pager', 'sh'])).toBeUndefined();
    expect(gitConfigWrite(['git', 'status'])).toBeUndefined();
    expect(gitConfigWrite(['ls', 'config', 'core.pager', 'sh'])).toBeUndefined();
  });
});
