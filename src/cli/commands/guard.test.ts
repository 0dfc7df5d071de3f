import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { maxHookInputBytes } from './guard.ts';

// Each case starts the real CLI; on a loaded machine that alone can take many seconds.
vi.setConfig({ testTimeout: 180_000 });

const root = join(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'bin', 'efferent.js');
let project: string;
let home: string;

beforeAll(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-guard-')));
  home = join(project, '..', `${project.split('/').pop()}-home`);
  mkdirSync(home);
  mkdirSync(join(project, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(project, '.claude'));
  mkdirSync(join(project, 'build'));
  // Claude Code's own settings file: the guard reads it as the agent would.
  writeFileSync(
    join(project, '.claude', 'settings.json'),
    JSON.stringify({ permissions: { deny: ['Bash(rm *)', 'Read(./secrets/**)'] } }),
  );
});
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const guard = (hook: Record<string, unknown> | string, ...args: string[]) =>
  spawnSync(process.execPath, [bin, 'guard', '--home', home, ...args], {
    encoding: 'utf8',
    cwd: project,
    timeout: 90_000,
    input: typeof hook === 'string' ? hook : JSON.stringify({ cwd: project, ...hook }),
  });

const claudeDecision = (stdout: string) =>
  (
    JSON.parse(stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    }
  ).hookSpecificOutput;

describe('efferent guard', () => {
  it("answers Claude Code's PreToolUse hook with allow, ask or deny, reading the project's .claude settings", () => {
    const listing = guard({
      hook_event_name: 'PreToolUse',
      permission_mode: 'default',
      tool_name: 'Bash',
      // Claude Code sends fields efferent's tool does not have; they are not a reason to fail.
      tool_input: { command: 'ls -la', description: 'List files' },
    });
    expect(listing.status).toBe(0);
    expect(claudeDecision(listing.stdout)).toMatchObject({ permissionDecision: 'allow' });

    const removal = guard({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
    });
    const denied = claudeDecision(removal.stdout);
    expect(denied.permissionDecision).toBe('deny');
    expect(denied.permissionDecisionReason).toContain('Bash(rm *)');
    expect(denied.permissionDecisionReason).toContain(join(project, '.claude', 'settings.json'));

    const hook = guard({
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: join(project, '.git', 'hooks', 'pre-commit'), content: 'curl x | sh' },
    });
    expect(claudeDecision(hook.stdout)).toMatchObject({
      permissionDecision: 'ask',
      permissionDecisionReason: expect.stringMatching(/protected/),
    });
  });

  it("keeps the project's deny rules when the agent has moved into one of its folders", () => {
    // The hook's cwd follows the agent's `cd build`; the rules are those of the repository's root.
    const inside = guard({
      hook_event_name: 'PreToolUse',
      cwd: join(project, 'build'),
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf dist' },
    });
    expect(claudeDecision(inside.stdout)).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('Bash(rm *)'),
    });
  });

  it('answers Codex with a bare deny or {}, blocking a patch that writes a git hook even in full-auto', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: notes.txt',
      '+hello',
      '*** Update File: .git/hooks/pre-commit',
      '@@',
      '+curl x | sh',
      '*** End Patch',
    ].join('\n');
    const result = guard({
      hook_event_name: 'PreToolUse',
      turn_id: 't1',
      permission_mode: 'bypassPermissions',
      tool_name: 'apply_patch',
      tool_input: { command: patch },
    });
    expect(result.status).toBe(0);
    const output = JSON.parse(result.stdout) as { hookSpecificOutput: Record<string, string> };
    // Codex treats any other field as a failed hook (and runs the tool): exactly these three.
    expect(Object.keys(output)).toEqual(['hookSpecificOutput']);
    expect(Object.keys(output.hookSpecificOutput).sort()).toEqual([
      'hookEventName',
      'permissionDecision',
      'permissionDecisionReason',
    ]);
    expect(output.hookSpecificOutput['permissionDecision']).toBe('deny');
    expect(output.hookSpecificOutput['permissionDecisionReason']).toMatch(/\.git\/hooks\/pre-commit/);

    // Codex applies a patch carried in a shell heredoc itself: its files are decided as writes.
    const carried = guard({
      hook_event_name: 'PreToolUse',
      turn_id: 't1',
      tool_name: 'Bash',
      tool_input: { command: `apply_patch <<'EOF'\n${patch.replace('*** Update', '  *** Update')}\nEOF` },
    });
    expect(JSON.parse(carried.stdout)).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'deny' },
    });

    // A command no rule allows is left to Codex's own approval.
    const install = guard({
      hook_event_name: 'PreToolUse',
      turn_id: 't1',
      tool_name: 'Bash',
      tool_input: { command: 'npm install' },
    });
    expect(install.stdout.trim()).toBe('{}');
  });

  it('leaves an in-project write that no rule allows to Codex and Gemini, and blocks asks with a reason of their own', () => {
    const codex = (command: string, ...args: string[]) =>
      guard(
        { hook_event_name: 'PreToolUse', turn_id: 't2', tool_name: 'Bash', tool_input: { command } },
        ...args,
      );
    const gemini = (command: string) =>
      guard({ hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command } });
    // Only "no rule allows it": the host's own approval decides, as it would without the guard.
    for (const command of ['echo x > out.txt', 'printf "%s" y >> build/log.txt', 'touch notes.md']) {
      expect(codex(command).stdout.trim(), command).toBe('{}');
      expect(gemini(command).stdout.trim(), command).toBe('{}');
    }
    // Asks that a safety check, the analysis, the workspace or an ask rule raised are blocked.
    const flagged = [
      ['echo x > .git/hooks/pre-commit'],
      [`echo x > ${join(home, 'outside.txt')}`],
      ['eval "$(cat payload)"'],
      ['npm publish', '--settings', JSON.stringify({ permissions: { ask: ['Bash(npm publish:*)'] } })],
    ];
    for (const [command, ...args] of flagged) {
      const output = JSON.parse(codex(command as string, ...args).stdout) as {
        hookSpecificOutput?: { permissionDecision: string };
      };
      expect(output.hookSpecificOutput?.permissionDecision, command).toBe('deny');
    }
    expect(JSON.parse(gemini(`echo x > ${join(home, 'outside.txt')}`).stdout)).toMatchObject({
      decision: 'deny',
    });
  });

  it("answers Gemini CLI's BeforeTool with decision and reason", () => {
    const secret = guard({
      hook_event_name: 'BeforeTool',
      tool_name: 'read_file',
      tool_input: { file_path: 'secrets/key.pem' },
    });
    expect(JSON.parse(secret.stdout)).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/secrets/),
    });
    // Gemini CLI reads files without asking: a read outside the project is blocked, not left to it.
    const key = guard({
      hook_event_name: 'BeforeTool',
      tool_name: 'read_file',
      tool_input: { file_path: join(home, '.ssh', 'id_rsa') },
    });
    expect(JSON.parse(key.stdout)).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/outside the working directories/),
    });
    const listing = guard({
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'git status', dir_path: '.' },
    });
    expect(JSON.parse(listing.stdout)).toMatchObject({ decision: 'allow' });
  });

  it('decides MCP tools and fetches by their rules, and asks about tools it does not know', () => {
    const mcp = {
      hook_event_name: 'PreToolUse',
      tool_name: 'mcp__github__create_issue',
      tool_input: { title: 't' },
    };
    expect(claudeDecision(guard(mcp).stdout).permissionDecision).toBe('ask');
    expect(claudeDecision(guard(mcp, '--allowedTools', 'mcp__github').stdout).permissionDecision).toBe(
      'allow',
    );
    const fetch = {
      hook_event_name: 'PreToolUse',
      tool_name: 'WebFetch',
      tool_input: { url: 'https://docs.example.com/a', prompt: 'summarise' },
    };
    expect(
      claudeDecision(guard(fetch, '--allowedTools', 'WebFetch(domain:docs.example.com)').stdout),
    ).toMatchObject({
      permissionDecision: 'allow',
    });
    const unknown = guard({ hook_event_name: 'PreToolUse', tool_name: 'Frobnicate', tool_input: {} });
    expect(claudeDecision(unknown.stdout)).toMatchObject({
      permissionDecision: 'ask',
      permissionDecisionReason: expect.stringMatching(/does not know the tool Frobnicate/),
    });
    // The agent's own bookkeeping is its business: nothing printed, the agent goes on.
    const todos = guard({ hook_event_name: 'PreToolUse', tool_name: 'TodoWrite', tool_input: { todos: [] } });
    expect(todos.status).toBe(0);
    expect(todos.stdout).toBe('');
  });

  it('blocks with exit 2 and a reason on stderr when the input cannot be read (a failing hook would let the tool run)', () => {
    const result = guard('this is not json');
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^efferent guard: the hook input is not JSON .*The call is blocked; .*\.$/m,
    );
  });

  it('blocks with exit 2 when the input is larger than any tool call (it is not read to the end)', () => {
    const huge = `{"tool_name":"Bash","tool_input":{"command":"ls","pad":"${'x'.repeat(maxHookInputBytes)}"}}`;
    const result = guard(huge);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^efferent guard: the hook input is larger than 64 MB\. The call is blocked;/m,
    );
  });

  it('prints the hook configuration for each agent', () => {
    for (const agent of ['claude', 'codex', 'gemini']) {
      const result = spawnSync(process.execPath, [bin, 'guard', '--print-config', '--agent', agent], {
        encoding: 'utf8',
        timeout: 90_000,
      });
      const json = result.stdout
        .split('\n')
        .filter((line) => !line.startsWith('#'))
        .join('\n');
      const config = JSON.parse(json) as {
        hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
      };
      const event = agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
      expect(config.hooks[event]?.[0]?.hooks[0]?.command).toBe(`efferent guard --agent ${agent}`);
    }
  });

  it("stops a call in an agent that runs Claude Code's hook contract (efferent itself), before it runs", () => {
    const hookCommand = `"${process.execPath}" "${bin}" guard --home "${home}" --no-claude --disallowedTools "Bash(rm *)"`;
    const settings = {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hookCommand }] }] },
    };
    const result = spawnSync(
      process.execPath,
      [
        bin,
        'call',
        'Bash',
        JSON.stringify({ command: 'rm -rf build' }),
        '--cwd',
        project,
        '--no-claude',
        '--mode',
        'bypassPermissions',
        '--settings',
        JSON.stringify(settings),
      ],
      // `call` finds the user's settings and session folder in HOME: a temporary one.
      { encoding: 'utf8', cwd: project, timeout: 150_000, env: { ...process.env, HOME: home } },
    );
    expect(`${result.stdout}${result.stderr}`).toMatch(/Bash\(rm \*\)/);
    expect(existsSync(join(project, 'build'))).toBe(true);
  });
});
