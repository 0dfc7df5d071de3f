import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHookRunner } from './runner.ts';
import type { HookInput } from './types.ts';

const root = mkdtempSync(join(tmpdir(), 'efferent-hooks-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes an executable script, exactly as a user would keep it in .claude/hooks/. */
function script(name: string, body: string): string {
  const path = join(root, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function preToolInput(toolName: string, toolInput: Record<string, unknown>): HookInput {
  return {
    session_id: 'session-1',
    transcript_path: join(root, 'transcript.jsonl'),
    cwd: root,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: toolName,
    tool_input: toolInput,
    tool_use_id: 'toolu_1',
  };
}

/** Killed and not yet reaped (a container's init may never reap orphans) counts as dead. */
function isDeadOrZombie(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z';
  } catch {
    return true;
  }
}

const signal = (): AbortSignal => new AbortController().signal;

describe('command hooks', () => {
  it('passes the input JSON on stdin and the project dir in the environment', async () => {
    const capture = join(root, 'captured.json');
    const hook = script(
      'capture.sh',
      `cat > "${capture}"\necho "$CLAUDE_PROJECT_DIR|$EFFERENT_PROJECT_DIR|$(pwd)" > "${capture}.env"`,
    );
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] },
      projectDir: root,
    });
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', { command: 'ls' }), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(outcome.ran).toBe(1);
    expect(outcome.errors).toEqual([]);
    expect(JSON.parse(readFileSync(capture, 'utf8'))).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      session_id: 'session-1',
    });
    expect(readFileSync(`${capture}.env`, 'utf8').trim()).toBe(`${root}|${root}|${root}`);
  });

  it('exit 2 blocks with stderr as the reason, and JSON cannot override it', async () => {
    const hook = script(
      'block-rm.sh',
      `input=$(cat)
case "$input" in
  *'"command":"rm '*) echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo "rm is not allowed here" >&2; exit 2;;
esac
exit 0`,
    );
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] },
    });
    const blocked = await runner.run('PreToolUse', preToolInput('Bash', { command: 'rm -rf x' }), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(blocked.blocked).toEqual({ reason: 'rm is not allowed here', hook });
    expect(blocked.permissionDecision).toBeUndefined();
    const fine = await runner.run('PreToolUse', preToolInput('Bash', { command: 'ls' }), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(fine.blocked).toBeUndefined();
  });

  it('reads JSON decisions, rewrites and context from a node -e hook', async () => {
    const hook = script(
      'rewrite.sh',
      `node -e '
let data = "";
process.stdin.on("data", (chunk) => (data += chunk)).on("end", () => {
  const input = JSON.parse(data);
  process.stdout.write(JSON.stringify({
    systemMessage: "rewrote it",
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: "safe after rewrite",
      updatedInput: { command: input.tool_input.command + " --dry-run" },
      additionalContext: "ran in dry-run mode",
    },
  }));
});'`,
    );
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook }] }] },
    });
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', { command: 'make' }), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(outcome.permissionDecision).toEqual({ behavior: 'allow', reason: 'safe after rewrite', hook });
    expect(outcome.updatedInput).toEqual({ command: 'make --dry-run' });
    expect(outcome.additionalContext).toEqual(['ran in dry-run mode']);
    expect(outcome.systemMessages).toEqual(['rewrote it']);
  });

  it('merges decisions deny > defer > ask > allow across parallel hooks, and maps legacy approve/block', async () => {
    const allow = script(
      'allow.sh',
      `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`,
    );
    const ask = script(
      'ask.sh',
      `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}'`,
    );
    const legacyBlock = script(
      'legacy.sh',
      `cat >/dev/null; echo '{"decision":"block","reason":"legacy no"}'`,
    );
    const run = async (commands: string[]) =>
      createHookRunner({
        hooks: { PreToolUse: [{ hooks: commands.map((command) => ({ type: 'command', command })) }] },
      }).run('PreToolUse', preToolInput('Bash', { command: 'x' }), { signal: signal(), matchValue: 'Bash' });
    expect((await run([allow, ask])).permissionDecision?.behavior).toBe('ask');
    expect((await run([allow, ask, legacyBlock])).permissionDecision).toEqual({
      behavior: 'deny',
      reason: 'legacy no',
      hook: legacyBlock,
    });
  });

  it('other exit codes are non-blocking errors, but valid JSON still takes effect', async () => {
    const hook = script(
      'warn.sh',
      `cat >/dev/null; echo '{"hookSpecificOutput":{"additionalContext":"still here"}}'; echo "minor problem" >&2; exit 1`,
    );
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook }] }] },
    });
    const outcome = await runner.run('PreToolUse', preToolInput('Read', {}), {
      signal: signal(),
      matchValue: 'Read',
    });
    expect(outcome.blocked).toBeUndefined();
    expect(outcome.errors).toEqual([{ hook, message: 'minor problem' }]);
    expect(outcome.additionalContext).toEqual(['still here']);
  });

  it('plain stdout is context only for UserPromptSubmit and SessionStart', async () => {
    const hook = script('plain.sh', `cat >/dev/null; echo "today is a holiday"`);
    const runner = createHookRunner({
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }],
        PreToolUse: [{ hooks: [{ type: 'command', command: hook }] }],
      },
    });
    const prompt = await runner.run(
      'UserPromptSubmit',
      { ...preToolInput('x', {}), hook_event_name: 'UserPromptSubmit', prompt: 'hi' },
      { signal: signal() },
    );
    expect(prompt.additionalContext).toEqual(['today is a holiday']);
    const tool = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(tool.additionalContext).toEqual([]);
  });

  it('runs only matching hooks, deduplicates identical handlers and runs them in parallel', async () => {
    const log = join(root, 'parallel.log');
    // Each run logs its start, then waits (up to 20 s) for a second start before logging its end: only
    // runs that overlap log both starts before either end, however slowly the machine starts them.
    const slow = script(
      'slow.sh',
      `cat >/dev/null; echo start >> "${log}"
for i in $(seq 200); do [ "$(grep -c start "${log}")" -ge 2 ] && break; sleep 0.1; done
echo end >> "${log}"`,
    );
    const runner = createHookRunner({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: slow }] },
          { matcher: 'Bash|Write', hooks: [{ type: 'command', command: slow }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: `${slow} ` }] },
          { matcher: 'Read', hooks: [{ type: 'command', command: `${slow}  ` }] },
        ],
      },
    });
    expect(runner.hasHooks('PreToolUse', 'Glob')).toBe(false);
    expect(runner.hasHooks('PreToolUse', 'Bash')).toBe(true);
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(outcome.ran).toBe(2);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['start', 'start', 'end', 'end']);
  });

  it('kills a PreToolUse hook that outlives its timeout, with its process group, and denies the call', async () => {
    const pidFile = join(root, 'child.pid');
    const hook = script('hang.sh', `cat >/dev/null; sleep 30 & echo $! > "${pidFile}"; wait`);
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook, timeout: 0.3 }] }] },
    });
    const started = Date.now();
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome.blocked).toBeUndefined();
    expect(outcome.errors[0]?.message).toMatch(/timed out after 0.3s/);
    // The same rule as an in-process hook: no answer never approves.
    expect(outcome.permissionDecision).toMatchObject({
      behavior: 'deny',
      reason: expect.stringMatching(/timed out/),
    });
    const childPid = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isDeadOrZombie(childPid)).toBe(true);
  });

  it('caps hook output strings at 10,000 characters', async () => {
    const hook = script(
      'long.sh',
      `cat >/dev/null; node -e 'process.stderr.write("x".repeat(20000))'; exit 2`,
    );
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook }] }] },
    });
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(outcome.blocked?.reason.length).toBeLessThan(10_100);
    expect(outcome.blocked?.reason).toMatch(/truncated: 10000 more characters/);
  });

  it('reports unsupported handler types without failing the others, and honours disabled', async () => {
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'agent', prompt: 'is this ok?' }] }] },
    });
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(outcome.errors[0]?.message).toMatch(/not supported/);
    // A prompt hook without a model cannot decide: the call is asked about, never let through.
    const modeless = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'prompt', prompt: 'is this ok?' }] }] },
    });
    const asked = await modeless.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(asked.permissionDecision?.behavior).toBe('ask');
    expect(asked.errors[0]?.message).toMatch(/prompt hooks need a model/);
    const disabled = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'exit 2' }] }] },
      disabled: true,
    });
    expect(disabled.hasHooks('PreToolUse', 'Bash')).toBe(false);
  });

  it('evaluates `if` conditions with the given matcher', async () => {
    const runner = createHookRunner({
      hooks: {
        PreToolUse: [
          { hooks: [{ type: 'command', command: 'cat >/dev/null; echo no >&2; exit 2', if: 'Bash(rm *)' }] },
        ],
      },
      matchesCondition: (pattern, toolName, toolInput) =>
        pattern === 'Bash(rm *)' &&
        toolName === 'Bash' &&
        String((toolInput as { command: string }).command).startsWith('rm '),
    });
    expect(
      (
        await runner.run('PreToolUse', preToolInput('Bash', { command: 'ls' }), {
          signal: signal(),
          matchValue: 'Bash',
        })
      ).blocked,
    ).toBeUndefined();
    expect(
      (
        await runner.run('PreToolUse', preToolInput('Bash', { command: 'rm x' }), {
          signal: signal(),
          matchValue: 'Bash',
        })
      ).blocked?.reason,
    ).toBe('no');
  });

  it('PostToolUse: replacement output, block feedback and continue:false', async () => {
    const hook = script(
      'post.sh',
      `cat >/dev/null; echo '{"continue":false,"stopReason":"enough","decision":"block","reason":"looks wrong","hookSpecificOutput":{"updatedToolOutput":"redacted"}}'`,
    );
    const runner = createHookRunner({
      hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: hook }] }] },
    });
    const outcome = await runner.run(
      'PostToolUse',
      { ...preToolInput('Echo', {}), hook_event_name: 'PostToolUse' },
      { signal: signal(), matchValue: 'Echo' },
    );
    expect(outcome.updatedToolOutput).toEqual({ value: 'redacted' });
    expect(outcome.blockReasons).toEqual(['looks wrong']);
    expect(outcome.stop).toEqual({ reason: 'enough', hook });
  });

  it('PermissionRequest decisions merge deny over allow; exit 2 is not honoured there', async () => {
    const allow = script(
      'pr-allow.sh',
      `cat >/dev/null; echo '{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}'`,
    );
    const deny = script(
      'pr-deny.sh',
      `cat >/dev/null; echo '{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no"}}}'`,
    );
    const exit2 = script('pr-exit2.sh', `cat >/dev/null; echo ignored >&2; exit 2`);
    const runner = createHookRunner({
      hooks: {
        PermissionRequest: [{ hooks: [allow, deny, exit2].map((command) => ({ type: 'command', command })) }],
      },
    });
    const outcome = await runner.run(
      'PermissionRequest',
      { ...preToolInput('Bash', {}), hook_event_name: 'PermissionRequest' },
      { signal: signal(), matchValue: 'Bash' },
    );
    expect(outcome.permissionRequestDecision).toEqual({ behavior: 'deny', message: 'no' });
    expect(outcome.blocked).toBeUndefined();
  });
});

describe('in-process hooks', () => {
  it('calls callbacks with the input and tool use id, deduplicating the same function', async () => {
    const seen: Array<string | undefined> = [];
    const callback = (input: HookInput, toolUseId: string | undefined) => {
      seen.push(toolUseId);
      return {
        hookSpecificOutput: {
          permissionDecision: 'deny' as const,
          permissionDecisionReason: `no ${String(input.tool_name)}`,
        },
      };
    };
    const runner = createHookRunner({
      callbacks: [
        { event: 'PreToolUse', matcher: 'Bash', callback },
        { event: 'PreToolUse', callback },
      ],
    });
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
      toolUseId: 'toolu_9',
    });
    expect(seen).toEqual(['toolu_9']);
    expect(outcome.permissionDecision).toMatchObject({ behavior: 'deny', reason: 'no Bash' });
  });

  it('a PreToolUse callback that times out denies the call, as a command hook does; elsewhere a timeout is a non-blocking error', async () => {
    const never = () => new Promise<undefined>(() => {});
    const runner = createHookRunner({
      callbacks: [
        { event: 'PreToolUse', callback: never, timeout: 0.05 },
        { event: 'PostToolUse', callback: never, timeout: 0.05 },
      ],
    });
    const pre = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(pre.permissionDecision).toMatchObject({
      behavior: 'deny',
      reason: expect.stringMatching(/timed out/),
    });
    const post = await runner.run(
      'PostToolUse',
      { ...preToolInput('Bash', {}), hook_event_name: 'PostToolUse' },
      { signal: signal(), matchValue: 'Bash' },
    );
    expect(post.blocked).toBeUndefined();
    expect(post.errors[0]?.message).toMatch(/timed out/);
  });

  it('a throwing callback is a non-blocking error; invalid output is rejected', async () => {
    const runner = createHookRunner({
      callbacks: [
        {
          event: 'PreToolUse',
          callback: () => {
            throw new Error('oops');
          },
        },
        {
          event: 'PreToolUse',
          callback: () => ({ hookSpecificOutput: { permissionDecision: 'maybe' } }) as never,
        },
      ],
    });
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.errors.map((error) => error.message).join('\n')).toMatch(
      /threw: oops[\s\S]*permissionDecision/,
    );
  });
});

describe('command hooks run under bash with the project and settings environment', () => {
  it('runs `[[ … ]]` and sees CLAUDE_PROJECT_DIR, EFFERENT_PROJECT_DIR and the given env', async () => {
    const runner = createHookRunner({
      projectDir: root,
      env: { PATH: process.env['PATH'], FROM_SETTINGS: 'yes' },
      hooks: {
        PreToolUse: [
          {
            hooks: [
              {
                type: 'command',
                command:
                  'if [[ "$FROM_SETTINGS" == yes && "$CLAUDE_PROJECT_DIR" == "$EFFERENT_PROJECT_DIR" ]]; then echo "{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",\\"permissionDecision\\":\\"deny\\",\\"permissionDecisionReason\\":\\"bash in $CLAUDE_PROJECT_DIR\\"}}"; fi',
              },
            ],
          },
        ],
      },
    });
    const outcome = await runner.run('PreToolUse', preToolInput('Bash', {}), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(outcome.errors).toEqual([]);
    expect(outcome.permissionDecision).toMatchObject({ behavior: 'deny', reason: `bash in ${root}` });
  });
});
