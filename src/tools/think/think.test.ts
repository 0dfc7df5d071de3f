import { describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../core/index.ts';
import { ThinkTool } from './think.ts';

describe('Think', () => {
  it('records the thought and touches nothing', async () => {
    const context = createToolUseContext({ cwd: '/nonexistent' });
    const result = await ThinkTool.call(
      { thought: 'plan' },
      context,
      async () => ({ behavior: 'allow', trace: [] }),
      () => {},
      't',
    );
    expect(result.data).toEqual({ thought: 'plan' });
    expect(result.contextModifier).toBeUndefined();
    expect(ThinkTool.mapResultToBlock(result.data, 't').content).toContain('Thought recorded');
    expect(ThinkTool.isReadOnly({ thought: 'x' })).toBe(true);
  });
  it('needs a non-empty thought', () => {
    expect(ThinkTool.inputSchema.safeParse({ thought: '' }).success).toBe(false);
  });
});
