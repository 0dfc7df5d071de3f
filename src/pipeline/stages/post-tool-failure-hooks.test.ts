import { describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../core/index.ts';
import { createHookRunner, type HookInput } from '../../hooks/index.ts';
import { failingTool } from '../../../test/pipeline/fixtures.ts';
import { runPostToolFailureHooks } from './post-tool-failure-hooks.ts';

describe('runPostToolFailureHooks (step 10, failure branch)', () => {
  it('reports the error and interrupt flag, and still runs after an abort', async () => {
    const seen: HookInput[] = [];
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PostToolUseFailure',
          callback: (input) => {
            seen.push(input);
            return { hookSpecificOutput: { additionalContext: 'retry with --force' } };
          },
        },
      ],
    });
    const context = createToolUseContext({ cwd: '/tmp' });
    context.run.abortController.abort();
    const value = await runPostToolFailureHooks({
      hooks,
      tool: failingTool(),
      input: {},
      toolUseId: 't',
      context,
      error: 'Fail failed: disk on fire',
      isInterrupt: true,
      durationMs: 5,
    });
    expect(seen[0]).toMatchObject({
      hook_event_name: 'PostToolUseFailure',
      error: 'Fail failed: disk on fire',
      is_interrupt: true,
      duration_ms: 5,
    });
    expect(value.additionalContext).toEqual(['retry with --force']);
  });
});
