import { mkdirSync, utimesSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolUseContext, type PermissionMode } from '../../src/core/index.ts';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../../src/permissions/index.ts';
import { getAllBaseTools } from '../../src/registry/index.ts';
import { createBashTool } from '../../src/tools/bash/bash.ts';
import type { ShellOutput } from '../../src/tools/shared/process/shell-output.ts';
import { callTool } from '../../src/tools/shared/process/test-shell.ts';
import {
  appendConfig,
  commitAttributes,
  embedBareRepository,
  type GitLab,
  gitQuietly,
  makeGitLab,
  makePlainRepository,
  readMarker,
} from './git-fixtures.ts';

/**
 * Real repositories whose configuration names a program that leaves a marker, and the read-only
 * git commands that would run it. For each: real git (without efferent) really runs the program
 * (the attack is live), efferent asks for every one of the commands, and a command is only ever run
 * through the real Bash tool when efferent allowed it — so the marker never appears. Plain
 * repositories allow the same commands and they run.
 */

const commands: Array<{ command: string; args: string[] }> = [
  { command: 'git status', args: ['status'] },
  { command: 'git diff', args: ['diff'] },
  { command: 'git log -p', args: ['log', '-p'] },
  { command: 'git show', args: ['show'] },
  { command: 'git blame a.txt', args: ['blame', 'a.txt'] },
  { command: 'git describe --dirty --always', args: ['describe', '--dirty', '--always'] },
  { command: 'git ls-remote origin', args: ['ls-remote', 'origin'] },
];

interface Attack {
  name: string;
  /** Builds the attack in a fresh plain repository; returns where git runs (default: the root). */
  apply: (lab: GitLab, root: string) => string | undefined;
  /** False for keys git only uses with a terminal (core.pager): no live control then. */
  live?: boolean;
}

const attacks: Attack[] = [
  {
    name: 'core.fsmonitor',
    apply: (lab, root) => void appendConfig(root, `[core]\n\tfsmonitor = ${lab.program}`),
  },
  {
    name: 'diff.external',
    apply: (lab, root) => void appendConfig(root, `[diff]\n\texternal = ${lab.program}`),
  },
  {
    name: 'diff.<driver>.textconv with .gitattributes',
    apply: (lab, root) => {
      commitAttributes(lab, root, 'a.txt diff=evil');
      appendConfig(root, `[diff "evil"]\n\ttextconv = ${lab.program}`);
      writeFileSync(join(root, 'a.txt'), 'changed again\n');
      return undefined;
    },
  },
  {
    name: 'diff.<driver>.command with .gitattributes',
    apply: (lab, root) => {
      commitAttributes(lab, root, 'a.txt diff=evil');
      appendConfig(root, `[diff "evil"]\n\tcommand = ${lab.program}`);
      writeFileSync(join(root, 'a.txt'), 'changed again\n');
      return undefined;
    },
  },
  {
    name: 'filter.<driver>.clean with .gitattributes',
    apply: (lab, root) => {
      commitAttributes(lab, root, 'a.txt filter=evil');
      appendConfig(root, `[filter "evil"]\n\tclean = ${lab.program}`);
      writeFileSync(join(root, 'a.txt'), 'changed again\n');
      return undefined;
    },
  },
  {
    name: 'gpg.program with log.showSignature',
    apply: (lab, root) =>
      void appendConfig(root, `[gpg]\n\tprogram = ${lab.program}\n[log]\n\tshowSignature = true`),
  },
  {
    name: 'remote.<name>.uploadpack',
    apply: (lab, root) => void appendConfig(root, `[remote "origin"]\n\tuploadpack = ${lab.program}`),
  },
  {
    name: 'core.sshCommand with an ssh remote',
    apply: (lab, root) => {
      lab.git(root, 'remote', 'set-url', 'origin', 'ssh://example.invalid/x.git');
      appendConfig(root, `[core]\n\tsshCommand = ${lab.program}`);
      return undefined;
    },
  },
  {
    name: 'ext:: remote with protocol.ext.allow',
    apply: (lab, root) => {
      lab.git(root, 'remote', 'set-url', 'origin', `ext::${lab.program} %S`);
      appendConfig(root, '[protocol "ext"]\n\tallow = always');
      return undefined;
    },
  },
  {
    name: 'core.pager',
    apply: (lab, root) => void appendConfig(root, `[core]\n\tpager = ${lab.program}`),
    live: false,
  },
  {
    name: 'include.path to a tracked file carrying core.fsmonitor',
    apply: (lab, root) => {
      writeFileSync(join(root, 'team.gitconfig'), `[core]\n\tfsmonitor = ${lab.program}\n`);
      appendConfig(root, '[include]\n\tpath = ../team.gitconfig');
      return undefined;
    },
  },
  {
    name: 'includeIf gitdir to a file carrying diff.external',
    apply: (lab, root) => {
      writeFileSync(join(root, 'team.gitconfig'), `[diff]\n\texternal = ${lab.program}\n`);
      appendConfig(root, '[includeIf "gitdir:**"]\n\tpath = ../team.gitconfig');
      return undefined;
    },
  },
  {
    name: 'post-index-change hook',
    apply: (lab, root) => {
      const hook = join(root, '.git', 'hooks', 'post-index-change');
      writeFileSync(hook, `#!/bin/sh\nexec ${lab.program} hook\n`);
      chmodSync(hook, 0o755);
      staleTrackedFile(lab, root);
      return undefined;
    },
  },
  {
    name: 'core.hooksPath naming a tracked folder with post-index-change',
    apply: (lab, root) => {
      mkdirSync(join(root, 'githooks'));
      const hook = join(root, 'githooks', 'post-index-change');
      writeFileSync(hook, `#!/bin/sh\nexec ${lab.program} hook\n`);
      chmodSync(hook, 0o755);
      appendConfig(root, '[core]\n\thooksPath = githooks');
      staleTrackedFile(lab, root);
      return undefined;
    },
  },
  {
    name: 'embedded bare repository checked out as ordinary files (textconv via info/attributes)',
    apply: (lab, root) => {
      const vendor = join(root, 'vendor', 'evil');
      embedBareRepository(lab, root, vendor);
      writeFileSync(
        join(vendor, 'config'),
        `[core]\n\tbare = true\n[diff "evil"]\n\ttextconv = ${lab.program}\n`,
      );
      mkdirSync(join(vendor, 'info'), { recursive: true });
      writeFileSync(join(vendor, 'info', 'attributes'), 'a.txt diff=evil\n');
      return vendor;
    },
  },
];

/** A committed, unchanged file whose timestamp moved: the next index refresh writes the index. */
function staleTrackedFile(lab: GitLab, root: string): void {
  writeFileSync(join(root, 'b.txt'), 'unchanged\n');
  lab.git(root, 'add', 'b.txt');
  lab.git(root, 'commit', '-qm', 'b');
  const later = new Date(Date.now() + 5000);
  utimesSync(join(root, 'b.txt'), later, later);
}

let lab: GitLab;
let options: CheckOptions;
const bash = createBashTool({ sandbox: 'off' });

beforeAll(async () => {
  lab = makeGitLab();
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: lab.home, ...(shell ? { shell } : {}) };
});
afterAll(() => lab.cleanup(), 120_000);

async function decide(command: string, cwd: string, mode: PermissionMode = 'default', allow: string[] = []) {
  return checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd, mode, home: lab.home, rules: { allow } },
    options,
  );
}

/** Runs a command through the real Bash tool (no sandbox: as the user) in `cwd`. */
async function runBash(command: string, cwd: string, project: string, env: Record<string, string> = {}) {
  const context = createToolUseContext({
    cwd,
    projectRoot: project,
    sessionDir: join(lab.base, 'session'),
    env: { PATH: process.env.PATH, HOME: lab.home, LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', ...env },
  });
  const { result } = await callTool<ShellOutput>(bash, { command }, context);
  return result.data;
}

let serial = 0;

describe('repository configuration that runs a program: git never runs it without asking', () => {
  for (const attack of attacks) {
    it(attack.name, async () => {
      serial += 1;
      const root = makePlainRepository(lab, `attack${serial}`);
      const cwd = attack.apply(lab, root) ?? root;
      // The attack is live: plain git runs the program for at least one of the commands.
      lab.reset();
      const triggeredBy: string[] = [];
      for (const { command, args } of commands) {
        gitQuietly(lab, cwd, args);
        if (lab.ran()) triggeredBy.push(command);
        lab.reset();
      }
      if (attack.live !== false) expect(triggeredBy, 'plain git should run the program').not.toEqual([]);
      // efferent asks for every command, and runs only what it allowed: the program never runs.
      for (const { command } of commands) {
        for (const mode of ['default', 'acceptEdits', 'auto'] as const) {
          const decision = await decide(command, cwd, mode);
          expect(decision.behavior, `${command} in ${mode}: ${decision.message}`).toBe('ask');
          expect(decision.message ?? '').toMatch(/\.$/);
          if (decision.behavior === 'allow') await runBash(command, cwd, root);
        }
      }
      expect(readMarker(lab)).toBe('');
    });
  }

  it('an alias is inspected when an allow rule would let `git st` run', async () => {
    serial += 1;
    const root = makePlainRepository(lab, `attack${serial}`);
    appendConfig(root, `[alias]\n\tst = !${lab.program}`);
    gitQuietly(lab, root, ['st']);
    expect(lab.ran()).toBe(true);
    lab.reset();
    const decision = await decide('git st', root, 'default', ['Bash(git *)']);
    expect(decision.behavior).toBe('ask');
    expect(decision.message).toContain('alias.st');
  });

  it('the persisted working directory decides which repository is inspected', async () => {
    serial += 1;
    const root = makePlainRepository(lab, `attack${serial}`);
    const vendor = join(root, 'vendor', 'evil');
    embedBareRepository(lab, root, vendor);
    appendConfig(vendor, `[diff]\n\texternal = ${lab.program}`, join(vendor, 'config'));
    expect((await decide('git log -p', root)).behavior).toBe('allow');
    const inside = await decide('git log -p', vendor);
    expect(inside.behavior).toBe('ask');
    expect(inside.message).toContain(join(vendor, 'config'));
  });
});

describe('plain repositories: the same commands are allowed and run', () => {
  it('allows every command with no prompt and runs it through the Bash tool', async () => {
    const root = makePlainRepository(lab, 'plain');
    appendConfig(
      root,
      '[pull]\n\trebase = true\n[core]\n\thooksPath = .husky/_\n[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true',
    );
    mkdirSync(join(root, 'src'));
    for (const cwd of [root, join(root, 'src')]) {
      for (const { command } of commands) {
        const decision = await decide(command, cwd);
        expect(decision.behavior, `${command}: ${decision.message}`).toBe('allow');
        expect(decision.trace.map((step) => step.detail).join('\n')).toContain('Repository configuration');
        const output = await runBash(command.replace('a.txt', join(root, 'a.txt')), cwd, root);
        expect(output.exitCode, `${command}: ${output.stderr}`).toBe(0);
      }
    }
    expect(readMarker(lab)).toBe('');
  });
});

describe('the Bash tool neutralises repository programs for git it starts', () => {
  it('runs git with fsmonitor off, hooks off for read-only lines, explicit bare repositories and no ext::', async () => {
    const root = makePlainRepository(lab, 'neutral');
    appendConfig(root, `[core]\n\tfsmonitor = ${lab.program}`);
    const hook = join(root, '.git', 'hooks', 'post-index-change');
    writeFileSync(hook, `#!/bin/sh\nexec ${lab.program} hook\n`);
    chmodSync(hook, 0o755);
    const vendor = join(root, 'vendor', 'evil');
    embedBareRepository(lab, root, vendor);
    writeFileSync(
      join(vendor, 'config'),
      `[core]\n\tbare = true\n[diff "evil"]\n\ttextconv = ${lab.program}\n`,
    );
    mkdirSync(join(vendor, 'info'), { recursive: true });
    writeFileSync(join(vendor, 'info', 'attributes'), 'a.txt diff=evil\n');
    const ext = makePlainRepository(lab, 'neutral-ext');
    lab.git(ext, 'remote', 'set-url', 'origin', `ext::${lab.program} %S`);
    appendConfig(ext, '[protocol "ext"]\n\tallow = always');

    const cases: Array<[string, string]> = [
      ['git status', root],
      ['git describe --dirty --always', root],
      ['git log -p', vendor],
      ['git ls-remote origin', ext],
    ];
    for (const [command, cwd] of cases) {
      // Control: plain git runs the program here.
      utimesSync(join(root, 'a.txt'), new Date(Date.now() + 9000), new Date(Date.now() + 9000));
      gitQuietly(lab, cwd, command.split(' ').slice(1));
      expect(lab.ran(), `plain git runs the program for ${command}`).toBe(true);
      lab.reset();
      utimesSync(join(root, 'a.txt'), new Date(Date.now() + 19000), new Date(Date.now() + 19000));
      await runBash(command, cwd, root);
      expect(readMarker(lab), `the Bash tool ran the program for ${command}`).toBe('');
    }
    // Lines that may write keep the user's hooks but still get no fsmonitor.
    await runBash('git status && true > /dev/null; touch x', root, root);
    expect(readMarker(lab)).not.toContain('ran 2');
  });

  it("keeps the user's own GIT_CONFIG_COUNT entries", async () => {
    const root = makePlainRepository(lab, 'kept');
    const output = await runBash('git config --get user.name', root, root, {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'user.name',
      GIT_CONFIG_VALUE_0: 'Kept Name',
    });
    expect(output.stdout.trim()).toBe('Kept Name');
    const hooks = await runBash(
      'git config --get core.hooksPath; git config --get safe.bareRepository',
      root,
      root,
    );
    expect(hooks.stdout.split('\n').filter(Boolean)).toEqual(['/dev/null', 'explicit']);
    const pagers = await runBash('printenv GIT_PAGER; printenv LESSOPEN; true', root, root, {
      LESSOPEN: `| ${lab.program} %s`,
    });
    expect(pagers.stdout.trim()).toBe('cat');
  });
});
