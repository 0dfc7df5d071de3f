import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyEnvVar } from '../../shell/env-vars.ts';
import { loadDefaultShellAnalyzer } from '../default-shell.ts';
import type { ShellAnalyzer } from '../decide/shell/shell-contract.ts';
import { evaluateShellCommand } from '../decide/shell/bash-permissions.ts';
import { createWorkspace } from '../decide/workspace.ts';
import { parseGitConfig } from './config-file.ts';
import { entryConcern, isInertRemoteUrl } from './inert-keys.ts';
import { type GitInvocation, inspectGitInvocation } from './inspect-git.ts';

describe('parseGitConfig reads what git reads', () => {
  const keys = (text: string) => {
    const parsed = parseGitConfig(text, '/x/config');
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.entries.map((entry) => [entry.section, entry.subsection, entry.name, entry.value]);
  };

  it('handles sections, subsections, old syntax, bare keys, quotes, escapes, comments and continuations', () => {
    expect(keys('[Core]\n\tFSMonitor = "a b" ; c\n')).toEqual([['core', undefined, 'fsmonitor', 'a b']]);
    expect(keys('[diff "Evil"]\ntextconv=x\n')).toEqual([['diff', 'Evil', 'textconv', 'x']]);
    expect(keys('[diff.Evil]\ntextconv=x\n')).toEqual([['diff', 'evil', 'textconv', 'x']]);
    expect(keys('[core]\nbare\n')).toEqual([['core', undefined, 'bare', null]]);
    expect(keys('[core]\nx = a\\\n  b\n')).toEqual([['core', undefined, 'x', 'a  b']]);
    expect(keys('[core]\nx = "q\\"t\\\\" # c\n')).toEqual([['core', undefined, 'x', 'q"t\\']]);
    expect(keys('\ufeff# c\n[a "s\\"q"] k = v\n')).toEqual([['a', 's"q', 'k', 'v']]);
  });

  it('reports what git would reject instead of guessing', () => {
    for (const text of [
      'k = v\n',
      '[core\nx=1',
      '[core]\nx = "open\n',
      '[core]\nx = \\q\n',
      '[core]\n1x = y\n',
    ])
      expect(parseGitConfig(text, '/x/config').ok, text).toBe(false);
  });
});

describe('the allowlist', () => {
  it('accepts ordinary remote URLs and refuses transports that run programs', () => {
    for (const url of [
      'https://github.com/a/b.git',
      'git@github.com:a/b.git',
      'ssh://git@host/x',
      '../up.git',
      '/srv/up.git',
      'file:///srv/x',
    ])
      expect(isInertRemoteUrl(url), url).toBe(true);
    for (const url of [
      'ext::sh -c x',
      'fd::3',
      'evil::https://x',
      'ssh://-oProxyCommand=x/y',
      '-u x',
      '-oProxyCommand=x:y',
      'foo://host/x',
    ])
      expect(isInertRemoteUrl(url), url).toBe(false);
  });

  it('judges values where the key alone does not decide', () => {
    const entry = (section: string, subsection: string | undefined, name: string, value: string | null) => ({
      section,
      subsection,
      name,
      value,
      file: 'f',
      line: 1,
    });
    expect(entryConcern(entry('core', undefined, 'fsmonitor', 'false'))).toBeUndefined();
    expect(entryConcern(entry('core', undefined, 'fsmonitor', null))).toBeUndefined();
    expect(entryConcern(entry('core', undefined, 'fsmonitor', '.git/hooks/fsmonitor-watchman'))).toMatch(
      /program/,
    );
    expect(entryConcern(entry('submodule', 's', 'update', 'rebase'))).toBeUndefined();
    expect(entryConcern(entry('submodule', 's', 'update', '!sh x'))).toMatch(/command/);
    expect(entryConcern(entry('filter', 'lfs', 'clean', 'git-lfs clean -- %f'))).toBeUndefined();
    expect(entryConcern(entry('filter', 'lfs', 'clean', 'git-lfs clean -- %f; x'))).toMatch(/program/);
    expect(entryConcern(entry('diff', 'x', 'xfuncname', '^x'))).toBeUndefined();
    expect(entryConcern(entry('brandnew', undefined, 'key', 'v'))).toMatch(/not know/);
    expect(entryConcern(entry('core', undefined, 'pager', 'cat'))).toBeUndefined();
    expect(entryConcern(entry('core', undefined, 'pager', 'less -R; x'))).toMatch(/program/);
    expect(entryConcern(entry('pager', undefined, 'branch', 'false'))).toBeUndefined();
    expect(entryConcern(entry('pager', undefined, 'log', 'sh -c x'))).toMatch(/program/);
    expect(entryConcern(entry('diff', undefined, 'external', ''))).toBeUndefined();
  });

  it('GOFLAGS, GOENV and GOTOOLCHAIN are never skipped by allow rules (-toolexec runs a program)', () => {
    for (const name of ['GOFLAGS', 'GOENV', 'GOTOOLCHAIN']) expect(classifyEnvVar(name)).toBe('dangerous');
  });
});

describe('the inspection follows the directory git really runs in', () => {
  let base: string;
  let shell: ShellAnalyzer;
  beforeAll(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-gitcfg-unit-')));
    const gitDir = (path: string, config: string) => {
      mkdirSync(join(path, 'objects'), { recursive: true });
      mkdirSync(join(path, 'refs'), { recursive: true });
      writeFileSync(join(path, 'HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(join(path, 'config'), config);
    };
    gitDir(join(base, 'proj', '.git'), '[core]\n\tbare = false\n');
    gitDir(join(base, 'proj', 'vendor', 'evil'), '[core]\n\tfsmonitor = /x/run\n');
    mkdirSync(join(base, 'proj', 'src'));
    const loaded = await loadDefaultShellAnalyzer();
    if (!loaded) throw new Error('the shell analyser did not load');
    shell = loaded;
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const invocation = (argv: string[], cwd: string | null, envVars: string[] = []): GitInvocation => ({
    argv,
    envVars: envVars.map((name) => ({ name })),
    cwd,
    home: base,
  });

  it('resolves -C, --git-dir and --bare, and asks for what it cannot model', () => {
    const proj = join(base, 'proj');
    expect(inspectGitInvocation(invocation(['git', 'status'], proj)).ok).toBe(true);
    expect(inspectGitInvocation(invocation(['git', '-C', 'vendor/evil', 'log'], proj)).ok).toBe(false);
    expect(inspectGitInvocation(invocation(['git', '-C', 'vendor', '-C', 'evil', 'log'], proj)).ok).toBe(
      false,
    );
    expect(inspectGitInvocation(invocation(['git', '--git-dir=vendor/evil', 'log'], proj)).ok).toBe(false);
    expect(inspectGitInvocation(invocation(['git', '--bare', 'log'], join(proj, 'vendor', 'evil'))).ok).toBe(
      false,
    );
    expect(inspectGitInvocation(invocation(['git', '-c', 'core.pager=x', 'log'], proj)).ok).toBe(false);
    expect(inspectGitInvocation(invocation(['git', '-c', 'color.ui=never', 'log'], proj)).ok).toBe(true);
    // Every -c the read-only classifier accepts stays inert here.
    for (const setting of [
      'core.pager=cat',
      'diff.external=',
      'core.fsmonitor=false',
      'core.quotepath=off',
      'log.decorate=short',
      'diff.noprefix=true',
      'advice.detachedHead=false',
      'column.ui=never',
    ])
      expect(inspectGitInvocation(invocation(['git', '-c', setting, 'log'], proj)).ok, setting).toBe(true);
    expect(inspectGitInvocation(invocation(['git', '--exec-path=/tmp', 'log'], proj)).ok).toBe(false);
    expect(inspectGitInvocation(invocation(['git', '--frobnicate', 'log'], proj)).ok).toBe(false);
    expect(inspectGitInvocation(invocation(['git', 'status'], null)).ok).toBe(false);
    expect(inspectGitInvocation(invocation(['git', 'status'], proj, ['GIT_DIR'])).ok).toBe(false);
    // A pager of cat (or none) and the lock and prompt switches are harmless; any other value asks.
    const assigned = (name: string, value: string) => ({
      argv: ['git', 'log'],
      envVars: [{ name, value }],
      cwd: proj,
      home: base,
    });
    for (const [name, value] of [
      ['GIT_PAGER', 'cat'],
      ['GIT_PAGER', ''],
      ['GIT_TERMINAL_PROMPT', '0'],
      ['GIT_OPTIONAL_LOCKS', '0'],
    ] as const)
      expect(inspectGitInvocation(assigned(name, value)).ok, `${name}=${value}`).toBe(true);
    for (const [name, value] of [
      ['GIT_PAGER', 'sh -c id'],
      ['GIT_PAGER', './pager'],
      ['GIT_DIR', 'x'],
      ['GIT_CONFIG_GLOBAL', 'x'],
    ] as const)
      expect(inspectGitInvocation(assigned(name, value)).ok, `${name}=${value}`).toBe(false);
  });

  it('is given the cwd the analyser tracked: cd earlier on the line, env -C, the session directory', () => {
    const proj = join(base, 'proj');
    const seen: Array<string | null> = [];
    const workspace = {
      ...createWorkspace({ cwd: proj, projectRoot: proj, home: base, additionalDirectories: [] }),
      inspectGit: (request: GitInvocation) => {
        seen.push(request.cwd);
        return inspectGitInvocation(request);
      },
    };
    const decide = (command: string, cwd = proj) =>
      evaluateShellCommand(command, cwd, {
        mode: 'default',
        workspace: { ...workspace, cwd },
        shellRules: { deny: [], ask: [], allow: [] },
        pathRules: { readDeny: [], writeDeny: [], writeAsk: [], writeAllow: [] },
        classifyEnvVar,
        family: 'Bash',
        analyzer: shell,
      });
    expect(decide('cd vendor/evil && git log').behavior).toBe('ask');
    expect(seen.at(-1)).toBe(join(proj, 'vendor', 'evil'));
    expect(decide('env -C vendor/evil git log').behavior).not.toBe('allow');
    expect(decide('git log', join(proj, 'vendor', 'evil')).behavior).toBe('ask');
    expect(seen.at(-1)).toBe(join(proj, 'vendor', 'evil'));
    const plain = decide('git log', join(proj, 'src'));
    expect(plain.behavior).toBe('allow');
    expect(seen.at(-1)).toBe(join(proj, 'src'));
    expect(plain.steps.some((step) => step.stage === 'safety' && step.detail.includes('inspected'))).toBe(
      true,
    );
  });

  it('is skipped in bypassPermissions, which runs anything anyway', () => {
    const proj = join(base, 'proj', 'vendor', 'evil');
    const verdict = evaluateShellCommand('git log', proj, {
      mode: 'bypassPermissions',
      workspace: createWorkspace({ cwd: proj, projectRoot: proj, home: base, additionalDirectories: [] }),
      shellRules: { deny: [], ask: [], allow: [] },
      pathRules: { readDeny: [], writeDeny: [], writeAsk: [], writeAllow: [] },
      classifyEnvVar,
      family: 'Bash',
      analyzer: shell,
    });
    expect(verdict.behavior).toBe('allow');
  });
});
