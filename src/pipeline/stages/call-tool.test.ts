import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, type CanUseTool, createToolUseContext } from '../../core/index.ts';
import { failingTool, waitingTool } from '../../../test/pipeline/fixtures.ts';
import { type CallOutcome, callTool, type ProgressEvent } from './call-tool.ts';

const canUseTool: CanUseTool = async () => ({ behavior: 'allow', trace: [] });

async function drain(generator: AsyncGenerator<ProgressEvent, CallOutcome>) {
  const progress: ProgressEvent[] = [];
  while (true) {
    const next = await generator.next();
    if (next.done) return { progress, outcome: next.value };
    progress.push(next.value);
  }
}

describe('callTool (step 10)', () => {
  it('yields progress while the tool is still running', async () => {
    let finish: (() => void) | undefined;
    const slow = buildTool<{ n: number }, string, number>({
      name: 'Slow',
      inputSchema: z.object({ n: z.number() }),
      prompt: 's',
      call: async (input, _context, _can, onProgress, toolUseId) => {
        for (let i = 1; i <= input.n; i++) onProgress({ toolUseId, data: i });
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        return { data: 'done' };
      },
    });
    const generator = callTool({
      tool: slow,
      input: { n: 2 },
      context: createToolUseContext({ cwd: '/' }),
      canUseTool,
      toolUseId: 't1',
    });
    expect((await generator.next()).value).toEqual({ type: 'progress', toolUseId: 't1', data: 1 });
    expect((await generator.next()).value).toEqual({ type: 'progress', toolUseId: 't1', data: 2 });
    expect(finish).toBeDefined(); // the call has not returned yet
    finish?.();
    const last = await generator.next();
    expect(last).toEqual({ done: true, value: { kind: 'returned', result: { data: 'done' } } });
  });

  it('reports a throw as data, not as an exception', async () => {
    const { outcome } = await drain(
      callTool({
        tool: failingTool(),
        input: {},
        context: createToolUseContext({ cwd: '/' }),
        canUseTool,
        toolUseId: 't',
      }),
    );
    expect(outcome.kind).toBe('threw');
    expect(outcome.kind === 'threw' && (outcome.error as Error).message).toBe('disk on fire');
  });

  it('ends at once on abort, even for a tool that ignores the signal', async () => {
    const stubborn = buildTool({
      name: 'Stubborn',
      inputSchema: z.object({}),
      prompt: 's',
      call: () =>
        new Promise<{ data: string }>((_, reject) => setTimeout(() => reject(new Error('late')), 200)),
    });
    const context = createToolUseContext({ cwd: '/' });
    setTimeout(() => context.run.abortController.abort(), 20);
    const started = Date.now();
    const { outcome } = await drain(
      callTool({ tool: stubborn, input: {}, context, canUseTool, toolUseId: 't' }),
    );
    expect(outcome).toEqual({ kind: 'aborted' });
    expect(Date.now() - started).toBeLessThan(150);
    await new Promise((resolve) => setTimeout(resolve, 250)); // the late rejection must stay handled
  });

  it('aborts a cooperative tool mid-call', async () => {
    const context = createToolUseContext({ cwd: '/' });
    const generator = callTool({
      tool: waitingTool(() => context.run.abortController.abort()),
      input: { ms: 10_000 },
      context,
      canUseTool,
      toolUseId: 't',
    });
    const { progress, outcome } = await drain(generator);
    expect(progress).toHaveLength(1);
    expect(outcome).toEqual({ kind: 'aborted' });
  });
});
