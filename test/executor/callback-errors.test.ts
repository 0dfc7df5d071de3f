import { describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../src/core/index.ts';
import { runStreamingTurn, StreamingToolExecutor } from '../../src/executor/index.ts';
import { directRunner, endStep, scriptedStream, standardTools, Tracker, toolUseSteps } from './harness.ts';

/** An `onEvent` callback that throws is a bug in the caller; the turn must still end, with nothing running. */
describe('an onEvent callback that throws', () => {
  it('makes runStreamingTurn throw once every call has settled, instead of hanging', async () => {
    const tracker = new Tracker();
    const tools = standardTools(tracker);
    const context = createToolUseContext({ cwd: process.cwd(), tools });
    // The stream ends first, so the last result is what would have closed the turn.
    const stream = scriptedStream([
      ...toolUseSteps(0, 'a', 'Read', { ms: 10 }),
      ...toolUseSteps(0, 'b', 'Read', { ms: 20 }),
      endStep(0),
    ]);
    const onEvent = (event: { type: string }) => {
      if (event.type === 'tool_result') throw new Error('consumer bug');
    };
    const seen: string[] = [];
    const run = async () => {
      for await (const event of runStreamingTurn(stream, {
        runTool: directRunner(tools),
        context,
        onEvent,
      })) {
        if (event.type === 'tool_result') seen.push(event.toolUseId);
      }
    };
    await expect(run()).rejects.toThrow('consumer bug');
    expect(seen).toEqual(['a', 'b']);
    expect(tracker.running.size).toBe(0);
    expect(tracker.ends).toEqual(['a', 'b']);
  });

  it('lets the executor publish every later result and rethrows from events()', async () => {
    const tracker = new Tracker();
    const tools = standardTools(tracker);
    const context = createToolUseContext({ cwd: process.cwd(), tools });
    const results: string[] = [];
    const executor = new StreamingToolExecutor({
      runTool: directRunner(tools),
      context,
      onEvent: (event) => {
        if (event.type !== 'tool_result') return;
        results.push(event.toolUseId);
        throw new Error(`bad callback for ${event.toolUseId}`);
      },
    });
    executor.addToolUse({ type: 'tool_use', id: 'w', name: 'Write', input: { ms: 5 } });
    executor.addToolUse({ type: 'tool_use', id: 'r', name: 'Read', input: { ms: 5 } });
    executor.endStream('tool_use');
    const drain = async () => {
      for await (const _ of executor.events()) {
        // onEvent receives the events
      }
    };
    await expect(drain()).rejects.toThrow('bad callback for w');
    expect(results).toEqual(['w', 'r']);
    expect(tracker.starts).toEqual(['w', 'r']);
    await executor.settled();
  });
});
