import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyTool,
  buildTool,
  createToolUseContext,
  type ToolUseBlock,
  type ToolUseContext,
  toolResultText,
} from '../../src/core/index.ts';
import { type ExecutorEvent, runStreamingTurn, runToolBatches } from '../../src/executor/index.ts';
import { directRunner, endStep, scriptedStream, standardTools, Tracker, toolUseSteps } from './harness.ts';

const use = (id: string, name: string, input: Record<string, unknown> = {}): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});

async function runBatches(
  blocks: ToolUseBlock[],
  options: { maxConcurrency?: number; abortAfterMs?: number } = {},
) {
  const tracker = new Tracker();
  const tools = standardTools(tracker);
  const context = createToolUseContext({
    cwd: process.cwd(),
    tools,
    maxConcurrency: options.maxConcurrency ?? 10,
  });
  const timer =
    options.abortAfterMs === undefined
      ? undefined
      : setTimeout(() => context.run.abortController.abort(), options.abortAfterMs);
  const events: ExecutorEvent[] = [];
  for await (const event of runToolBatches(blocks, { runTool: directRunner(tools), context }))
    events.push(event);
  clearTimeout(timer);
  const results = events.flatMap((event) => (event.type === 'tool_result' ? [event] : []));
  return { tracker, results, texts: results.map((event) => toolResultText(event.result)) };
}

/** A tool that records the cwd it started in and appends its id to the cwd when it finishes. */
function markingTools(seen: Record<string, string>): AnyTool[] {
  const make = (name: string, safe: boolean) =>
    buildTool({
      name,
      inputSchema: z.object({ ms: z.number().default(0) }),
      prompt: `${name} test tool`,
      isConcurrencySafe: () => safe,
      async call(input, context, _canUseTool, _onProgress, toolUseId) {
        seen[toolUseId] = context.run.cwd;
        await new Promise((resolve) => setTimeout(resolve, input.ms));
        return {
          data: 'ok',
          contextModifier: (next: ToolUseContext) => ({
            ...next,
            run: { ...next.run, cwd: `${next.run.cwd}/${toolUseId}` },
          }),
        };
      },
    });
  return [make('Mark', true), make('Probe', false)];
}

const markingBlocks = [
  use('m1', 'Mark', { ms: 20 }),
  use('m2', 'Mark', { ms: 5 }),
  use('m3', 'Mark', { ms: 10 }),
  use('p', 'Probe'),
];

describe('runToolBatches', () => {
  it('a failing chained call cancels running and later siblings, as in a streamed turn', async () => {
    const run = await runBatches([
      use('long', 'Read', { ms: 300 }),
      use('bad', 'Shell', { ms: 10, readOnly: true, fail: true }),
      use('slow', 'Read', { ms: 60 }),
      use('write', 'Write', { ms: 5 }),
    ]);
    const cancelled = 'Cancelled: parallel tool call Shell(10ms) errored';
    expect(run.texts).toEqual([
      cancelled,
      expect.stringContaining('failed as scripted'),
      cancelled,
      cancelled,
    ]);
    expect(run.tracker.starts).toEqual(['long', 'bad', 'slow']);
    expect(run.results.map((event) => event.ran)).toEqual([true, true, true, false]);
  });

  it('an explicit interrupt cancels "cancel" and "block" calls alike and starts nothing new', async () => {
    const run = await runBatches(
      [use('cancelable', 'Read', { ms: 500 }), use('blocking', 'Wait', { ms: 100 }), use('write', 'Write')],
      { abortAfterMs: 30 },
    );
    expect(run.texts[0]).toMatch(/Interrupted by the user: Read was cancelled while running/);
    expect(run.texts[1]).toMatch(/Interrupted by the user: Wait was cancelled while running/);
    expect(run.texts[2]).toMatch(/Interrupted by the user: Write was not run/);
    expect(run.tracker.starts).toEqual(['cancelable', 'blocking']);
  });

  it('answers an unknown tool with the available names and runs the rest', async () => {
    const run = await runBatches([use('x', 'Nope'), use('r', 'Read', { ms: 1 })]);
    expect(run.texts[0]).toMatch(/No such tool available: Nope.*Read/);
    expect(run.texts[1]).toBe('Read ok');
    expect(run.results.map((event) => event.ran)).toEqual([false, true]);
  });

  for (const limit of [1, 2, 10]) {
    it(`calls of a concurrent batch start from the same context at limit ${limit}`, async () => {
      const seen: Record<string, string> = {};
      const tools = markingTools(seen);
      const context = createToolUseContext({ cwd: '/root', tools, maxConcurrency: limit });
      let final: ToolUseContext | undefined;
      const options = {
        runTool: directRunner(tools),
        context,
        onContext: (next: ToolUseContext) => {
          final = next;
        },
      };
      for await (const _ of runToolBatches(markingBlocks, options)) {
        // drain
      }
      expect(seen).toEqual({ m1: '/root', m2: '/root', m3: '/root', p: '/root/m1/m2/m3' });
      expect(final?.run.cwd).toBe('/root/m1/m2/m3/p');
    });
  }

  it('a streamed turn at limit 1 gives a concurrent batch the same context too', async () => {
    const seen: Record<string, string> = {};
    const tools = markingTools(seen);
    const context = createToolUseContext({ cwd: '/root', tools, maxConcurrency: 1 });
    const steps = [...markingBlocks.flatMap((block) => toolUseSteps(0, block.id, block.name, block.input))];
    let cwd: string | undefined;
    for await (const event of runStreamingTurn(scriptedStream([...steps, endStep(0)]), {
      runTool: directRunner(tools),
      context,
    })) {
      if (event.type === 'turn_end') cwd = event.outcome.context.run.cwd;
    }
    expect(seen).toEqual({ m1: '/root', m2: '/root', m3: '/root', p: '/root/m1/m2/m3' });
    expect(cwd).toBe('/root/m1/m2/m3/p');
  });
});
