import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHookRunner } from './runner.ts';
import { hookOutputPreviewChars } from './spill-output.ts';
import type { HookEvent, HookInput } from './types.ts';

const root = mkdtempSync(join(tmpdir(), 'efferent-hooks-bg-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const path = join(root, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function input(event: HookEvent, fields: Record<string, unknown> = {}): HookInput {
  return {
    session_id: 'session-1',
    transcript_path: join(root, 'transcript.jsonl'),
    cwd: root,
    permission_mode: 'default',
    hook_event_name: event,
    ...fields,
  };
}

const bashCall = (command: string) =>
  input('PreToolUse', { tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_1' });

const signal = (): AbortSignal => new AbortController().signal;

/** Killed and not yet reaped (a container's init may never reap orphans) counts as dead. */
function isDeadOrZombie(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z';
  } catch {
    return true;
  }
}

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('oversized hook output', () => {
  it('saves a string over 10,000 characters to the output folder and gives a preview with the path', async () => {
    const outputDir = join(root, 'session', 'hook-output');
    const hook = script(
      'long-block.sh',
      `cat >/dev/null; node -e 'for (let i = 0; i < 3000; i++) process.stderr.write("line " + i + "\\n")'; exit 2`,
    );
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook }] }] },
      outputDir,
    });
    const outcome = await runner.run('PreToolUse', bashCall('ls'), { signal: signal(), matchValue: 'Bash' });
    const reason = outcome.blocked?.reason ?? '';
    expect(reason.length).toBeLessThan(hookOutputPreviewChars + 400);
    expect(reason.startsWith('line 0\nline 1\n')).toBe(true);
    const path = /saved at (\S+\.txt);/.exec(reason)?.[1] ?? '';
    expect(path.startsWith(outputDir)).toBe(true);
    const full = readFileSync(path, 'utf8');
    expect(full.split('\n')).toHaveLength(3000);
    expect(full.endsWith('line 2999')).toBe(true);
    // The preview ends on a whole line.
    expect(reason.split('\n').at(-2)).toMatch(/^line \d+$/);

    // The same text is stored once; no temporary files are left behind.
    await runner.run('PreToolUse', bashCall('ls'), { signal: signal(), matchValue: 'Bash' });
    expect(await readdir(outputDir)).toEqual([path.slice(outputDir.length + 1)]);
  });

  it('spills JSON fields too (additionalContext, systemMessage) and leaves short ones alone', async () => {
    const outputDir = join(root, 'json-spill');
    const hook = script(
      'long-json.sh',
      `cat >/dev/null; node -e 'console.log(JSON.stringify({systemMessage: "short", hookSpecificOutput: {hookEventName: "PreToolUse", additionalContext: "c".repeat(12000)}}))'`,
    );
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook }] }] },
      outputDir,
    });
    const outcome = await runner.run('PreToolUse', bashCall('ls'), { signal: signal(), matchValue: 'Bash' });
    expect(outcome.systemMessages).toEqual(['short']);
    const context = outcome.additionalContext[0] ?? '';
    expect(context).toContain('12,000 characters');
    const path = /saved at (\S+\.txt);/.exec(context)?.[1] ?? '';
    expect(readFileSync(path, 'utf8')).toBe('c'.repeat(12000));
  });
});

describe('`if` conditions', () => {
  it('never runs a handler with `if` on a non-tool event', async () => {
    const marker = join(root, 'prompt-ran');
    const runner = createHookRunner({
      hooks: {
        UserPromptSubmit: [
          { hooks: [{ type: 'command', command: `cat >/dev/null; touch "${marker}"`, if: 'Bash(git *)' }] },
        ],
      },
      matchesCondition: () => true,
    });
    const outcome = await runner.run('UserPromptSubmit', input('UserPromptSubmit', { prompt: 'hi' }), {
      signal: signal(),
    });
    expect(outcome.ran).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('passes the hook input to the matcher and runs the hook when the matcher throws', async () => {
    const seen: HookInput[] = [];
    const runner = createHookRunner({
      hooks: {
        PreToolUse: [
          { hooks: [{ type: 'command', command: 'cat >/dev/null; echo guard >&2; exit 2', if: 'X' }] },
        ],
      },
      matchesCondition: (_pattern, _tool, _toolInput, hookInput) => {
        seen.push(hookInput);
        throw new Error('matcher bug');
      },
    });
    const outcome = await runner.run('PreToolUse', bashCall('ls'), { signal: signal(), matchValue: 'Bash' });
    expect(outcome.blocked?.reason).toBe('guard');
    expect(seen[0]?.cwd).toBe(root);
  });
});

describe('async hooks', () => {
  it('run in the background, outlive the call, and die with their process group on dispose', async () => {
    const pidFile = join(root, 'async.pid');
    const hook = script('async.sh', `cat >/dev/null; sleep 30 & echo $! > "${pidFile}"; wait`);
    const runner = createHookRunner({
      hooks: {
        PostToolUse: [{ hooks: [{ type: 'command', command: hook, async: true }] }],
      },
    });
    const call = new AbortController();
    const started = Date.now();
    const outcome = await runner.run('PostToolUse', input('PostToolUse', { tool_name: 'Bash' }), {
      signal: call.signal,
      matchValue: 'Bash',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(outcome.ran).toBe(0);
    expect(runner.backgroundCount).toBe(1);
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const grandchild = Number(readFileSync(pidFile, 'utf8'));

    // Ending the call does not end a background hook.
    call.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isDeadOrZombie(grandchild)).toBe(false);

    await runner.dispose();
    expect(runner.backgroundCount).toBe(0);
    // The group is killed on dispose; the kernel may take a moment to reap it on a busy machine.
    await waitFor(() => isDeadOrZombie(grandchild), 2_000);
    expect(isDeadOrZombie(grandchild)).toBe(true);

    const late = await runner.run('PostToolUse', input('PostToolUse', { tool_name: 'Bash' }), {
      signal: signal(),
      matchValue: 'Bash',
    });
    expect(late.errors[0]?.message).toMatch(/not started: the session has ended/);
    expect(runner.backgroundCount).toBe(0);
  });

  it('are killed at their timeout', async () => {
    const pidFile = join(root, 'async-timeout.pid');
    const hook = script('async-timeout.sh', `cat >/dev/null; sleep 30 & echo $! > "${pidFile}"; wait`);
    const runner = createHookRunner({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook, async: true, timeout: 0.3 }] }] },
    });
    await runner.run('PreToolUse', bashCall('ls'), { signal: signal(), matchValue: 'Bash' });
    await waitFor(() => runner.backgroundCount === 0);
    expect(isDeadOrZombie(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
    await runner.dispose();
  });
});
