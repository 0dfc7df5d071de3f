import { describe, expect, it } from 'vitest';
import { classifyToolError, createToolUseContext } from '../../core/index.ts';
import { checkAbort } from './abort-check.ts';

describe('checkAbort (step 2)', () => {
  it('passes a live context and stops an aborted one', () => {
    const context = createToolUseContext({ cwd: '/tmp' });
    expect(checkAbort(context)).toBeUndefined();
    context.run.abortController.abort();
    const failure = checkAbort(context);
    expect(failure?.outcome).toBe('aborted');
    expect(failure?.message).toMatch(/interrupted/);
    expect(classifyToolError(failure?.error)).toBe('efferent:aborted');
  });
});
