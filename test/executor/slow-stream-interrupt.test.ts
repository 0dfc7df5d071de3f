import { describe, expect, it } from 'vitest';
import { createToolUseContext, emptyUsage, type StreamEvent, toolResultText } from '../../src/core/index.ts';
import { runStreamingTurn, type TurnOutcome } from '../../src/executor/index.ts';
import { directRunner, standardTools, Tracker } from './harness.ts';

describe('an interrupt while the provider is slow to honour its signal', () => {
  it('ends the turn at once, with interrupted results, instead of waiting for the next event', async () => {
    const tracker = new Tracker();
    const tools = standardTools(tracker);
    const context = createToolUseContext({ cwd: process.cwd(), tools });
    let wake: (() => void) | undefined;
    let closed = false;
    // Ignores every signal: after one call it goes quiet until the test wakes it.
    const stubborn = async function* (): AsyncGenerator<StreamEvent> {
      try {
        yield { type: 'message_start' };
        yield { type: 'tool_use_start', id: 'read', name: 'Read' };
        yield { type: 'tool_use_end', id: 'read', name: 'Read', input: { ms: 2000 } };
        yield { type: 'tool_use_start', id: 'half', name: 'Write' };
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        yield { type: 'message_end', stopReason: 'tool_use', usage: emptyUsage() };
      } finally {
        closed = true;
      }
    };
    const started = performance.now();
    setTimeout(() => {
      tracker.interrupted = true;
      context.run.abortController.abort();
    }, 30);
    let outcome: TurnOutcome | undefined;
    for await (const event of runStreamingTurn(stubborn(), { runTool: directRunner(tools), context })) {
      if (event.type === 'turn_end') outcome = event.outcome;
    }
    expect(performance.now() - started).toBeLessThan(1000);
    expect(outcome?.stopReason).toBe('aborted');
    const texts = outcome?.toolResults.map((result) => toolResultText(result)) ?? [];
    expect(texts[0]).toMatch(/Interrupted by the user: Read was cancelled while running/);
    expect(texts[1]).toMatch(/not run: the request was interrupted before its input was complete/);
    expect(tracker.running.size).toBe(0);
    expect(tracker.violations).toEqual([]);
    // The stream was asked to close: a generator parked in an await closes as soon as it wakes.
    expect(closed).toBe(false);
    wake?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
  });
});
