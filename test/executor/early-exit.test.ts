import { getEventListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createToolUseContext, type StreamEvent } from '../../src/core/index.ts';
import { runStreamingTurn, runToolBatches } from '../../src/executor/index.ts';
import { directRunner, endStep, scriptedStream, standardTools, Tracker, toolUseSteps } from './harness.ts';

/** A consumer that stops reading must not leave calls running or keep pulling the model stream. */
describe('a consumer that stops reading early', () => {
  it('runStreamingTurn cancels "cancel" calls, waits for "block" calls, starts nothing new and lets the stream go', async () => {
    const tracker = new Tracker();
    const tools = standardTools(tracker);
    const context = createToolUseContext({ cwd: process.cwd(), tools });
    let streamClosed = false;
    let pulled = 0;
    const stream = async function* (): AsyncGenerator<StreamEvent> {
      try {
        for await (const event of scriptedStream([
          ...toolUseSteps(0, 'read', 'Read', { ms: 2000 }),
          ...toolUseSteps(0, 'wait', 'Wait', { ms: 80 }),
          ...toolUseSteps(150, 'late', 'Read', { ms: 5 }),
          endStep(0),
        ])) {
          pulled += 1;
          yield event;
        }
      } finally {
        streamClosed = true;
      }
    };
    const started = performance.now();
    let toolStarts = 0;
    for await (const event of runStreamingTurn(stream(), { runTool: directRunner(tools), context })) {
      if (event.type === 'tool_started') toolStarts += 1;
      if (toolStarts === 2) break;
    }
    const elapsed = performance.now() - started;
    // The loop ended only after the blocking call finished; the cancelable one was aborted.
    expect(tracker.running.size).toBe(0);
    expect(tracker.ends).toEqual(['read', 'wait']);
    expect(elapsed).toBeGreaterThanOrEqual(75);
    expect(elapsed).toBeLessThan(1000);
    // The stream is released at its next event; the call that arrives later never starts.
    await delay(200);
    expect(streamClosed).toBe(true);
    expect(pulled).toBeLessThanOrEqual(8);
    expect(tracker.starts).toEqual(['read', 'wait']);
    // The executor stopped listening to the turn's signal.
    expect(getEventListeners(context.run.abortController.signal, 'abort')).toHaveLength(0);
    expect(tracker.violations).toEqual([]);
  });

  it('runToolBatches cancels running calls and starts none of the rest', async () => {
    const tracker = new Tracker();
    const tools = standardTools(tracker);
    const context = createToolUseContext({ cwd: process.cwd(), tools });
    const blocks = [
      { type: 'tool_use' as const, id: 'read', name: 'Read', input: { ms: 2000 } },
      { type: 'tool_use' as const, id: 'wait', name: 'Wait', input: { ms: 60 } },
      { type: 'tool_use' as const, id: 'write', name: 'Write', input: { ms: 5 } },
    ];
    const started = performance.now();
    for await (const event of runToolBatches(blocks, { runTool: directRunner(tools), context })) {
      if (event.type === 'tool_started' && event.toolUseId === 'wait') break;
    }
    const elapsed = performance.now() - started;
    expect(tracker.running.size).toBe(0);
    expect(tracker.ends).toEqual(['read', 'wait']);
    expect(elapsed).toBeLessThan(1000);
    await delay(50);
    expect(tracker.starts).toEqual(['read', 'wait']);
    expect(getEventListeners(context.run.abortController.signal, 'abort')).toHaveLength(0);
  });
});
