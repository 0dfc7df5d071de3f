import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../core/index.ts';
import { createHookRunner, type HookCallback, type HookInput } from '../../hooks/index.ts';
import { echoTool } from '../../../test/pipeline/fixtures.ts';
import { runPreToolHooks } from './pre-tool-hooks.ts';

const root = mkdtempSync(join(tmpdir(), 'efferent-pre-hooks-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const context = createToolUseContext({ cwd: root, sessionDir: join(root, 'session'), sessionId: 's-1' });
const tool = echoTool();

function request(callback: HookCallback, input: Record<string, unknown> = { text: 'hi' }) {
  return {
    hooks: createHookRunner({ callbacks: [{ event: 'PreToolUse', callback }] }),
    tool,
    input,
    observableInput: { ...input, backfilled: true },
    toolUseId: 'toolu_1',
    context,
  };
}

describe('runPreToolHooks (step 7)', () => {
  it('passes through when no hook matches', async () => {
    const result = await runPreToolHooks({ ...request(() => undefined), hooks: undefined });
    expect(result).toEqual({
      ok: true,
      value: { input: { text: 'hi' }, inputUpdated: false, additionalContext: [] },
    });
  });

  it('shows hooks the backfilled input with the common fields', async () => {
    let seen: HookInput | undefined;
    await runPreToolHooks(
      request((input) => {
        seen = input;
        return undefined;
      }),
    );
    expect(seen).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Echo',
      tool_input: { text: 'hi', backfilled: true },
      tool_use_id: 'toolu_1',
      session_id: 's-1',
      cwd: root,
      permission_mode: 'default',
      transcript_path: join(root, 'session', 'transcript.jsonl'),
    });
  });

  it('hands a decision on and keeps context', async () => {
    const result = await runPreToolHooks(
      request(() => ({
        hookSpecificOutput: {
          permissionDecision: 'allow',
          permissionDecisionReason: 'trusted',
          additionalContext: 'note',
        },
      })),
    );
    expect(result.ok && result.value.hookDecision).toEqual({
      behavior: 'allow',
      reason: 'trusted',
      hook: 'callback:anonymous',
    });
    expect(result.ok && result.value.additionalContext).toEqual(['note']);
  });

  it('re-validates a rewritten input and strips internal fields from it', async () => {
    const rewritten = await runPreToolHooks(
      request(() => ({ hookSpecificOutput: { updatedInput: { text: 'bye', _secret: 'smuggled' } } })),
    );
    expect(rewritten.ok && rewritten.value).toMatchObject({ input: { text: 'bye' }, inputUpdated: true });
    const invalid = await runPreToolHooks(
      request(() => ({ hookSpecificOutput: { updatedInput: { text: 42 } } })),
    );
    expect(!invalid.ok && invalid.failure.message).toMatch(
      /^<tool_use_error>A PreToolUse hook rewrote the input of Echo into an invalid one, so the call was not run\. InputValidationError: .*\n.*`text` must be string, but number was given\.<\/tool_use_error>$/,
    );
  });

  it('blocks on exit 2 from a real script, stops on continue:false, defers on defer', async () => {
    const script = join(root, 'deny.sh');
    writeFileSync(script, '#!/bin/sh\ncat >/dev/null\necho "Echo is frozen today" >&2\nexit 2\n');
    chmodSync(script, 0o755);
    const hooks = createHookRunner({
      hooks: { PreToolUse: [{ matcher: 'Echo', hooks: [{ type: 'command', command: script }] }] },
    });
    const blocked = await runPreToolHooks({ ...request(() => undefined), hooks });
    expect(!blocked.ok && blocked.failure).toMatchObject({
      message: '<tool_use_error>Blocked by a PreToolUse hook: Echo is frozen today</tool_use_error>',
      outcome: 'hook_blocked',
    });
    const stopped = await runPreToolHooks(request(() => ({ continue: false, stopReason: 'quota used up' })));
    expect(!stopped.ok && stopped.failure).toMatchObject({
      outcome: 'hook_blocked',
      stopReason: 'quota used up',
    });
    const deferred = await runPreToolHooks(
      request(() => ({ hookSpecificOutput: { permissionDecision: 'defer' } })),
    );
    expect(!deferred.ok && deferred.failure).toMatchObject({
      outcome: 'deferred',
      stopReason: 'tool_deferred',
    });
  });
});
