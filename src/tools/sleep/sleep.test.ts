import { describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../core/index.ts';
import { SleepTool } from './sleep.ts';

const allow = async () => ({ behavior: 'allow' as const, trace: [] });

describe('Sleep', () => {
  it('waits the requested time', async () => {
    const context = createToolUseContext({ cwd: '/tmp' });
    const started = Date.now();
    const result = await SleepTool.call({ duration_ms: 60 }, context, allow, () => {}, 's1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(result.data).toMatchObject({ requestedMs: 60, interrupted: false });
  });

  it('stops early on abort and says so', async () => {
    const context = createToolUseContext({ cwd: '/tmp' });
    setTimeout(() => context.run.abortController.abort(), 30);
    const started = Date.now();
    const result = await SleepTool.call({ duration_ms: 10_000 }, context, allow, () => {}, 's2');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.data.interrupted).toBe(true);
    expect(SleepTool.mapResultToBlock(result.data, 's2').content).toMatch(
      /interrupted after \d+ ms of 10000 ms/,
    );
  });

  it('bounds the duration', () => {
    expect(SleepTool.inputSchema.safeParse({ duration_ms: 0 }).success).toBe(false);
    expect(SleepTool.inputSchema.safeParse({ duration_ms: 600_001 }).success).toBe(false);
    expect(SleepTool.inputSchema.safeParse({ duration_ms: 1.5 }).success).toBe(false);
  });
});
