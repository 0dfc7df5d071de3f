import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookProjectRoot } from '../commands/guard.ts';
import { patchTargets } from './apply-patch.ts';
import { hostVerdict } from './guard-output.ts';
import { type HookPayload, parseHookPayload, planGuardCalls } from './host-calls.ts';

const payload = (value: Record<string, unknown>) =>
  parseHookPayload(JSON.stringify(value), undefined, '/fallback');

describe('reading a hook payload', () => {
  it('tells the three hosts apart by event name, Codex fields and tool names', () => {
    expect(payload({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {} }).host).toBe('claude');
    expect(
      payload({ hook_event_name: 'PreToolUse', turn_id: 't', tool_name: 'Bash', tool_input: {} }).host,
    ).toBe('codex');
    expect(payload({ hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: {} }).host).toBe(
      'codex',
    );
    expect(payload({ hook_event_name: 'BeforeTool', tool_name: 'read_file', tool_input: {} }).host).toBe(
      'gemini',
    );
    expect(parseHookPayload('{"tool_name":"Bash","tool_input":{}}', 'gemini').host).toBe('gemini');
  });

  it('keeps an absolute cwd and a permission mode efferent has, and ignores the rest', () => {
    const read = payload({
      cwd: '/srv/p',
      permission_mode: 'acceptEdits',
      tool_name: 'Read',
      tool_input: {},
    });
    expect(read.cwd).toBe('/srv/p');
    expect(read.permissionMode).toBe('acceptEdits');
    const odd = payload({ cwd: 'relative', permission_mode: 'yolo', tool_name: 'Read', tool_input: {} });
    expect(odd.cwd).toBe('/fallback');
    expect(odd.permissionMode).toBeUndefined();
  });

  it('says what is wrong with input it cannot use', () => {
    expect(() => parseHookPayload('nope')).toThrow(/not JSON/);
    expect(() => parseHookPayload('[1]')).toThrow(/JSON object/);
    expect(() => parseHookPayload('{"tool_input":{}}')).toThrow(/no tool_name/);
    expect(() => parseHookPayload('{"tool_name":"Bash"}')).toThrow(/no tool_input/);
  });
});

const plan = (host: HookPayload['host'], toolName: string, toolInput: Record<string, unknown>) =>
  planGuardCalls({ host, cwd: '/srv/p', toolName, toolInput });

describe('mapping host tools onto efferent calls', () => {
  it("passes Claude Code's own tools through and maps the ones efferent lacks onto stand-ins", () => {
    expect(plan('claude', 'Edit', { file_path: 'a' })).toEqual({
      kind: 'decide',
      calls: [{ tool: 'Edit', input: { file_path: 'a' } }],
    });
    expect(plan('claude', 'WebFetch', { url: 'https://x.dev', prompt: 'p' })).toEqual({
      kind: 'decide',
      calls: [{ tool: 'WebFetch', input: { url: 'https://x.dev' } }],
    });
    expect(plan('claude', 'Task', { subagent_type: 'Explore', prompt: 'p' })).toMatchObject({
      calls: [{ tool: 'Task', input: { subagent_type: 'Explore' } }],
    });
    expect(plan('claude', 'mcp__github__create_issue', { title: 't' })).toMatchObject({
      calls: [{ tool: 'mcp__github__create_issue' }],
    });
  });

  it('has no opinion on tools that change only the agent’s own state, and asks about unknown ones', () => {
    expect(plan('claude', 'TodoWrite', { todos: [] }).kind).toBe('no-opinion');
    expect(plan('gemini', 'write_todos', {}).kind).toBe('no-opinion');
    expect(plan('claude', 'Frobnicate', {})).toEqual({
      kind: 'unknown',
      reason: 'efferent does not know the tool Frobnicate',
    });
  });

  it('decides a custom command the agent runs as the skill of its name (its text may run shell lines)', () => {
    for (const command of ['/deploy prod', 'deploy', '/deploy', '/deploy\targ'])
      expect(plan('claude', 'SlashCommand', { command })).toMatchObject({
        kind: 'decide',
        calls: [{ tool: 'Skill', input: { skill: 'deploy' } }],
      });
    expect(plan('claude', 'SlashCommand', {}).kind).toBe('unknown');
    expect(plan('claude', 'SlashCommand', { command: '/' }).kind).toBe('unknown');
  });

  it("decides Codex's shell in its working directory, and an argv shell command as the script bash runs", () => {
    expect(plan('codex', 'shell', { command: ['bash', '-lc', 'ls -la'], workdir: 'sub' })).toEqual({
      kind: 'decide',
      calls: [{ tool: 'Bash', input: { command: 'ls -la' }, cwd: '/srv/p/sub' }],
    });
    expect(plan('codex', 'shell', { command: ['rm', '-rf', 'a b'] })).toMatchObject({
      calls: [{ tool: 'Bash', input: { command: "rm -rf 'a b'" } }],
    });
  });

  it('turns every file of an apply_patch envelope into a write', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: docs/new.md',
      '+# Title',
      '+text',
      '*** Update File: src/a.ts',
      '@@',
      '-x',
      '+y',
      '*** Move to: src/b.ts',
      '*** Delete File: old.txt',
      '*** End Patch',
    ].join('\n');
    expect(patchTargets(patch)).toEqual([
      { path: 'docs/new.md', action: 'add', content: '# Title\ntext\n' },
      { path: 'src/a.ts', action: 'update' },
      { path: 'src/b.ts', action: 'move' },
      { path: 'old.txt', action: 'delete' },
    ]);
    expect(plan('codex', 'apply_patch', { command: patch })).toMatchObject({
      calls: [
        { tool: 'Write', input: { file_path: '/srv/p/docs/new.md', content: '# Title\ntext\n' } },
        { tool: 'Write', input: { file_path: '/srv/p/src/a.ts' } },
        { tool: 'Write', input: { file_path: '/srv/p/src/b.ts' } },
        { tool: 'Write', input: { file_path: '/srv/p/old.txt' } },
      ],
    });
    expect(plan('codex', 'apply_patch', { command: 'no envelope' }).kind).toBe('unknown');
    expect(patchTargets('*** Begin Patch\n*** Update File: \n*** End Patch')).toBeUndefined();
  });

  it("maps Gemini CLI's tools, resolving relative paths at the hook's cwd", () => {
    expect(plan('gemini', 'run_shell_command', { command: 'make', dir_path: 'pkg' })).toEqual({
      kind: 'decide',
      calls: [{ tool: 'Bash', input: { command: 'make' }, cwd: '/srv/p/pkg' }],
    });
    expect(plan('gemini', 'read_file', { file_path: 'a.txt' })).toMatchObject({
      calls: [{ tool: 'Read', input: { file_path: '/srv/p/a.txt' } }],
    });
    expect(plan('gemini', 'replace', { file_path: '/x/a', old_string: 'a', new_string: 'b' })).toMatchObject({
      calls: [{ tool: 'Edit', input: { file_path: '/x/a', old_string: 'a', new_string: 'b' } }],
    });
    expect(plan('gemini', 'search_file_content', { pattern: 'x', include: '*.ts' })).toMatchObject({
      calls: [{ tool: 'Grep', input: { pattern: 'x', path: '/srv/p', glob: '*.ts' } }],
    });
    expect(plan('gemini', 'list_directory', { dir_path: '/etc' })).toMatchObject({
      calls: [{ tool: 'Glob', input: { pattern: '*', path: '/etc' } }],
    });
    expect(plan('gemini', 'web_fetch', { prompt: 'see https://a.dev/x and http://b.dev' })).toMatchObject({
      calls: [
        { tool: 'WebFetch', input: { url: 'https://a.dev/x' } },
        { tool: 'WebFetch', input: { url: 'http://b.dev' } },
      ],
    });
    expect(plan('gemini', 'read_many_files', { paths: ['a', 'b'] })).toMatchObject({
      calls: [{ input: { file_path: '/srv/p/a' } }, { input: { file_path: '/srv/p/b' } }],
    });
    expect(plan('gemini', 'read_many_files', { paths: ['src/**/*.ts'] }).kind).toBe('unknown');
  });
});

describe('what each host is told', () => {
  const table = [
    // host, efferent's verdict, flagged, --on-ask, expected
    ['claude', 'ask', false, 'ask', 'ask'],
    ['codex', 'ask', false, 'ask', 'no-opinion'],
    ['codex', 'ask', true, 'ask', 'deny'],
    ['gemini', 'ask', true, 'ask', 'deny'],
    ['gemini', 'ask', true, 'defer', 'no-opinion'],
    ['claude', 'ask', false, 'deny', 'deny'],
    ['codex', 'allow', false, 'ask', 'no-opinion'],
    ['gemini', 'allow', false, 'ask', 'allow'],
    ['claude', 'deny', false, 'defer', 'deny'],
  ] as const;
  it.each(table)(
    '%s, efferent %s (flagged %s, --on-ask %s) → %s',
    (host, verdict, flagged, onAsk, expected) => {
      expect(hostVerdict(host, { verdict, flagged }, onAsk, 'allow')).toBe(expected);
    },
  );

  it('leaves an allow to the host with --on-allow defer', () => {
    expect(hostVerdict('claude', { verdict: 'allow' }, 'ask', 'defer')).toBe('no-opinion');
  });
});

describe('the project a hook call belongs to', () => {
  it('is the root the agent names when it holds the cwd, else the nearest folder with a .git, else the cwd', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-guard-root-')));
    try {
      const deep = join(root, 'repo', 'src', 'deep');
      mkdirSync(deep, { recursive: true });
      expect(hookProjectRoot(deep, {})).toBe(deep);
      mkdirSync(join(root, 'repo', '.git'));
      expect(hookProjectRoot(deep, {})).toBe(join(root, 'repo'));
      expect(hookProjectRoot(deep, { CLAUDE_PROJECT_DIR: join(root, 'repo', 'src') })).toBe(
        join(root, 'repo', 'src'),
      );
      // A named root that does not hold the cwd is not believed.
      expect(hookProjectRoot(deep, { GEMINI_PROJECT_DIR: '/elsewhere' })).toBe(join(root, 'repo'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
