import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionTarget } from '../core/index.ts';
import { type DefaultShellAnalyzer, loadDefaultShellAnalyzer } from './default-shell.ts';
import { evaluateRuleCondition, matchesRuleCondition, type RuleConditionCall } from './rule-condition.ts';

let shell: DefaultShellAnalyzer;
let dir: string;
beforeAll(async () => {
  shell = await loadDefaultShellAnalyzer();
  dir = await mkdtemp(join(tmpdir(), 'efferent-condition-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const project = '/work/project';
const home = '/home/dev';

function bash(command: string): RuleConditionCall {
  return {
    toolName: 'Bash',
    input: { command },
    target: { kind: 'command', command, shell: 'bash' },
    cwd: project,
    home,
  };
}

function file(toolName: string, path: string, access: 'read' | 'write'): RuleConditionCall {
  const target: PermissionTarget = { kind: 'path', path, access };
  return { toolName, input: { file_path: path }, target, cwd: project, home };
}

describe('shell conditions', () => {
  it.each([
    ['Bash(git *)', 'git push origin main', true],
    ['Bash(git *)', 'git', true],
    ['Bash(git *)', 'gitk --all', false],
    ['Bash(git *)', 'ls -la && git status', true],
    ['Bash(git *)', 'ls -la; echo done', false],
    ['Bash(git push *)', 'echo $(git push --force)', true],
    ['Bash(git push *)', 'FOO=bar git push', true],
    ['Bash(git push *)', 'timeout 10 git push', true],
    ['Bash(git push *)', 'bash -c "git push"', true],
    ['Bash(rm *)', 'find . -name x | xargs rm', true],
    ['Bash(rm *)', '/bin/rm -rf build', true],
    ['Bash(npm run test:*)', 'npm run test -- --watch', true],
    // The legacy `x:*` form means `x *`: a word boundary after `test`.
    ['Bash(npm run test:*)', 'npm run test:unit', false],
    ['Bash(npm run test:*)', 'npm run build', false],
    ['Bash(git commit *)', 'git status', false],
  ])('%s on `%s` → %s', (pattern, command, expected) => {
    expect(matchesRuleCondition(pattern, bash(command), { shell })).toBe(expected);
  });

  it('runs the hook when a word that decides the match is only known at run time', () => {
    const result = evaluateRuleCondition('Bash(git push *)', bash('git $SUBCOMMAND'), { shell });
    expect(result).toMatchObject({ matches: true, decided: false });
    // A pattern about the program alone is decided: the program is literal.
    expect(matchesRuleCondition('Bash(rm *)', bash('git $SUBCOMMAND'), { shell })).toBe(false);
  });

  it('runs the hook when there is no analyser or the command cannot be analysed', () => {
    expect(evaluateRuleCondition('Bash(git *)', bash('ls'), {})).toMatchObject({
      matches: true,
      decided: false,
    });
    const powershell: RuleConditionCall = {
      ...bash('Get-ChildItem'),
      toolName: 'PowerShell',
      target: { kind: 'command', command: 'Get-ChildItem', shell: 'powershell' },
    };
    expect(evaluateRuleCondition('PowerShell(Remove-Item *)', powershell, { shell }).decided).toBe(false);
  });

  it('never matches another tool', () => {
    expect(matchesRuleCondition('Bash(git *)', file('Read', '/work/project/a', 'read'), { shell })).toBe(
      false,
    );
  });
});

describe('path conditions', () => {
  it.each([
    ['Edit(/src/**)', 'Edit', '/work/project/src/app.ts', 'write', true],
    ['Edit(/src/**)', 'Write', '/work/project/src/new.ts', 'write', true],
    ['Edit(/src/**)', 'Edit', '/work/project/test/app.ts', 'write', false],
    ['Edit(/src/**)', 'Read', '/work/project/src/app.ts', 'read', false],
    ['Edit(*.ts)', 'Edit', '/work/project/deep/down/x.ts', 'write', true],
    ['Read(./.env)', 'Read', '/work/project/.env', 'read', true],
    ['Read(./.env)', 'Read', '/work/project/sub/.env', 'read', false],
    ['Read(./.env)', 'Grep', '/work/project/.env', 'read', true],
    ['Read(./.env)', 'Edit', '/work/project/.env', 'write', false],
    ['Read(~/.ssh/**)', 'Read', '/home/dev/.ssh/id_rsa', 'read', true],
    ['Read(//etc/passwd)', 'Read', '/etc/passwd', 'read', true],
    ['Read(//etc/passwd)', 'Read', '/etc/hosts', 'read', false],
  ] as const)('%s on %s %s → %s', (pattern, tool, path, access, expected) => {
    expect(matchesRuleCondition(pattern, file(tool, path, access), { shell })).toBe(expected);
  });

  it('anchors `/x` at the project root when it differs from the cwd', () => {
    const call = { ...file('Edit', '/work/project/src/a.ts', 'write'), cwd: '/work/project/src' };
    expect(matchesRuleCondition('Edit(/src/**)', { ...call, projectRoot: project })).toBe(true);
  });

  it('follows symbolic links on disk the way deny rules do', async () => {
    await writeFile(join(dir, 'secret.txt'), 'x');
    await symlink(join(dir, 'secret.txt'), join(dir, 'innocent.txt'));
    const call = { ...file('Read', join(dir, 'innocent.txt'), 'read'), cwd: dir };
    expect(matchesRuleCondition('Read(./secret.txt)', call)).toBe(true);
  });
});

describe('other conditions', () => {
  const fetch = (url: string): RuleConditionCall => ({
    toolName: 'WebFetch',
    input: { url },
    target: { kind: 'url', url },
    cwd: project,
    home,
  });

  it('compares parsed hosts for domain patterns', () => {
    expect(matchesRuleCondition('WebFetch(domain:example.com)', fetch('https://example.com/x'))).toBe(true);
    expect(matchesRuleCondition('WebFetch(domain:example.com)', fetch('https://example.com.evil.io/'))).toBe(
      false,
    );
    expect(matchesRuleCondition('WebFetch(domain:*.example.com)', fetch('https://api.example.com/'))).toBe(
      true,
    );
    expect(evaluateRuleCondition('WebFetch(domain:example.com)', fetch('not a url')).decided).toBe(false);
  });

  it('matches tool names, aliases and MCP servers', () => {
    const mcp: RuleConditionCall = {
      toolName: 'mcp__github__create_issue',
      input: {},
      target: { kind: 'none' },
      cwd: project,
      home,
    };
    expect(matchesRuleCondition('mcp__github', mcp)).toBe(true);
    expect(matchesRuleCondition('mcp__github__create_issue', mcp)).toBe(true);
    expect(matchesRuleCondition('mcp__gitlab', mcp)).toBe(false);
    const agent: RuleConditionCall = {
      toolName: 'Agent',
      aliases: ['Task'],
      input: { subagent_type: 'Explore' },
      target: { kind: 'agent', agentType: 'Explore' },
      cwd: project,
      home,
    };
    expect(matchesRuleCondition('Task(Explore)', agent)).toBe(true);
    expect(matchesRuleCondition('Agent(Plan)', agent)).toBe(false);
  });

  it('runs the hook for a pattern that does not parse', () => {
    const result = evaluateRuleCondition('Bash(git *', bash('ls'), { shell });
    expect(result).toMatchObject({ matches: true, decided: false });
    expect(result.reason).toContain('does not parse');
  });
});
