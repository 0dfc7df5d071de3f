import { describe, expect, it } from 'vitest';
import { parsePromptHookAnswer, promptHookResult, promptHookText } from './prompt-hook.ts';

const input = {
  session_id: 's',
  transcript_path: '/t',
  cwd: '/w',
  permission_mode: 'default' as const,
  hook_event_name: 'Stop' as const,
};

describe('prompt hook contract', () => {
  it('replaces every $ARGUMENTS with the input JSON, or appends the input', () => {
    expect(promptHookText('A $ARGUMENTS B $ARGUMENTS', input)).toBe(
      `A ${JSON.stringify(input)} B ${JSON.stringify(input)}`,
    );
    expect(promptHookText('Check it.', input)).toBe(`Check it.\n\nHook input:\n${JSON.stringify(input)}`);
  });

  it('reads ok/reason (also inside a code fence) and the older decision field', () => {
    expect(parsePromptHookAnswer('```json\n{"ok": false, "reason": "tests fail"}\n```')).toEqual({
      ok: false,
      reason: 'tests fail',
    });
    expect(parsePromptHookAnswer('{"decision": "approve"}')).toEqual({ ok: true });
    expect(parsePromptHookAnswer('yes, fine')).toHaveProperty('unreadable');
    expect(parsePromptHookAnswer('{"verdict": true}')).toHaveProperty('unreadable');
  });

  it('maps a verdict per event: a no denies or blocks, a yes approves only a permission request', () => {
    expect(promptHookResult('PreToolUse', 'h', { ok: false, reason: 'r' }).output).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'r' },
    });
    expect(promptHookResult('PreToolUse', 'h', { ok: true }).output).toBeUndefined();
    expect(promptHookResult('Stop', 'h', { ok: false, reason: 'r' }).output).toEqual({
      decision: 'block',
      reason: 'r',
    });
    expect(promptHookResult('PermissionRequest', 'h', { ok: true }).output).toMatchObject({
      hookSpecificOutput: { decision: { behavior: 'allow' } },
    });
  });
});
