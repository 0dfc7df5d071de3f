import { describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../core/index.ts';
import { createHookRunner, type HookInput } from '../../hooks/index.ts';
import { echoTool } from '../../../test/pipeline/fixtures.ts';
import { handleDenial } from './handle-denial.ts';

const context = createToolUseContext({ cwd: '/tmp' });
const decision = { behavior: 'deny' as const, message: 'Blocked by classifier', trace: [] };

describe('handleDenial (step 9)', () => {
  it('tells PermissionDenied hooks and offers a retry when one asks', async () => {
    let seen: HookInput | undefined;
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PermissionDenied',
          callback: (input) => {
            seen = input;
            return { hookSpecificOutput: { hookEventName: 'PermissionDenied', retry: true } };
          },
        },
      ],
    });
    const outcome = await handleDenial({
      hooks,
      tool: echoTool(),
      input: { text: 'x' },
      toolUseId: 'toolu_1',
      context,
      message: 'denied',
      decision,
    });
    expect(seen).toMatchObject({
      hook_event_name: 'PermissionDenied',
      tool_name: 'Echo',
      tool_use_id: 'toolu_1',
      reason: 'Blocked by classifier',
    });
    expect(outcome).toEqual({
      message: 'denied\nA PermissionDenied hook says you may retry this call.',
      retry: true,
      additionalContext: [],
    });
  });

  it('keeps the message without hooks', async () => {
    const outcome = await handleDenial({
      hooks: undefined,
      tool: echoTool(),
      input: {},
      toolUseId: 't',
      context,
      message: 'denied',
      decision,
    });
    expect(outcome).toEqual({ message: 'denied', retry: false, additionalContext: [] });
  });
});
