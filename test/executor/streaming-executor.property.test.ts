import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToolUseContext, isBadStopReason, type StopReason } from '../../src/core/index.ts';
import {
  runStreamingTurn,
  runToolBatches,
  type TurnEvent,
  type TurnOutcome,
} from '../../src/executor/index.ts';
import {
  directRunner,
  type StreamStep,
  scriptedStream,
  standardTools,
  Tracker,
  tickSleep,
} from './harness.ts';

/**
 * Random scripted turns against the real executor, with durations in event-loop ticks so thousands of
 * turns run in seconds while calls still interleave for real.
 * EFFERENT_PROPERTY_RUNS sets the number of turns (default 10,000).
 */
const runs = Number(process.env['EFFERENT_PROPERTY_RUNS'] ?? 10_000);

const callArbitrary = fc.record({
  tool: fc.constantFrom('Read', 'Read', 'Write', 'Shell', 'Wait', 'Unknown'),
  ticks: fc.integer({ min: 0, max: 6 }),
  gap: fc.integer({ min: 0, max: 3 }),
  fail: fc.integer({ min: 0, max: 99 }).map((roll) => roll < 15),
  readOnly: fc.boolean(),
  progress: fc.integer({ min: 0, max: 2 }),
});

const turnArbitrary = fc.record({
  calls: fc.array(callArbitrary, { minLength: 0, maxLength: 8 }),
  stop: fc.constantFrom<StopReason>('tool_use', 'tool_use', 'end_turn', 'max_tokens', 'error', 'refusal'),
  cutLast: fc.boolean(),
  abortAtStep: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
  limit: fc.integer({ min: 1, max: 4 }),
  afterStreamEnd: fc.boolean(),
  endGap: fc.integer({ min: 0, max: 4 }),
});
type Turn = typeof turnArbitrary extends fc.Arbitrary<infer T> ? T : never;

function stepsFor(turn: Turn): StreamStep[] {
  const steps: StreamStep[] = [];
  turn.calls.forEach((call, index) => {
    const id = `call_${index}`;
    const input = { ms: call.ticks, fail: call.fail, readOnly: call.readOnly, progress: call.progress };
    steps.push({ after: call.gap, event: { type: 'tool_use_start', id, name: call.tool } });
    const json = JSON.stringify(input);
    steps.push({ after: 0, event: { type: 'tool_input_delta', id, partialJson: json.slice(0, 5) } });
    if (turn.cutLast && index === turn.calls.length - 1) return;
    steps.push({ after: 0, event: { type: 'tool_input_delta', id, partialJson: json.slice(5) } });
    steps.push({ after: 0, event: { type: 'tool_use_end', id, name: call.tool, input } });
  });
  if (turn.stop === 'error')
    steps.push({ after: turn.endGap, event: { type: 'error', message: 'stream failed' } });
  else {
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
    steps.push({ after: turn.endGap, event: { type: 'message_end', stopReason: turn.stop, usage } });
  }
  return steps;
}

async function runRandomTurn(
  turn: Turn,
): Promise<{ events: TurnEvent[]; outcome: TurnOutcome; tracker: Tracker }> {
  const tracker = new Tracker();
  const tools = standardTools(tracker, tickSleep);
  const context = createToolUseContext({ cwd: process.cwd(), tools, maxConcurrency: turn.limit });
  const controller = context.run.abortController;
  const steps = stepsFor(turn);
  if (turn.abortAtStep !== undefined && turn.abortAtStep < steps.length) {
    const at = turn.abortAtStep;
    const step = steps[at] as StreamStep;
    steps[at] = { ...step, after: step.after };
    // Abort just before emitting that step, from inside the stream, like a user pressing Ctrl+C.
    const original = steps.slice();
    steps.length = 0;
    steps.push(...original.slice(0, at));
    const abortingStream = async function* () {
      yield* scriptedStream(steps, controller.signal, tickSleep);
      tracker.interrupted = true;
      controller.abort();
      yield { type: 'error' as const, message: 'aborted by the user' };
    };
    return collect(abortingStream(), turn, tools, context, tracker);
  }
  return collect(scriptedStream(steps, controller.signal, tickSleep), turn, tools, context, tracker);
}

async function collect(
  stream: AsyncIterable<import('../../src/core/index.ts').StreamEvent>,
  turn: Turn,
  tools: ReturnType<typeof standardTools>,
  context: ReturnType<typeof createToolUseContext>,
  tracker: Tracker,
) {
  const events: TurnEvent[] = [];
  let outcome: TurnOutcome | undefined;
  const options = { runTool: directRunner(tools), context, executeAfterStreamEnd: turn.afterStreamEnd };
  // Marks the end of the stream at the moment the executor is about to learn of it.
  const marked = async function* () {
    for await (const event of stream) {
      if (event.type === 'message_end' || event.type === 'error') tracker.streamEnded = true;
      yield event;
    }
  };
  for await (const event of runStreamingTurn(marked(), options)) {
    events.push(event);
    if (event.type === 'turn_end') outcome = event.outcome;
  }
  if (!outcome) throw new Error('no turn_end');
  return { events, outcome, tracker };
}

describe('streaming executor properties', () => {
  it(`holds its guarantees over ${runs} random turns`, async () => {
    await fc.assert(
      fc.asyncProperty(turnArbitrary, async (turn) => {
        const { events, outcome, tracker } = await runRandomTurn(turn);
        const toolUseIds = outcome.assistantMessage.content.flatMap((block) =>
          block.type === 'tool_use' ? [block.id] : [],
        );
        // Exactly one result per tool_use, in call order, in the outcome and in the event stream.
        expect(outcome.toolResults.map((result) => result.toolUseId)).toEqual(toolUseIds);
        const resultEvents = events.flatMap((event) =>
          event.type === 'tool_result' ? [event.toolUseId] : [],
        );
        expect(resultEvents).toEqual(toolUseIds);
        // No unsafe call overlapped anything, nothing started after an interrupt, the limit held.
        expect(tracker.violations).toEqual([]);
        expect(tracker.maxRunning).toBeLessThanOrEqual(turn.limit);
        // Nothing is left running once the turn is over.
        expect(tracker.running.size).toBe(0);
        expect(tracker.ends.length).toBe(tracker.starts.length);
        // After a bad ending, no mutating call starts.
        if (isBadStopReason(outcome.stopReason)) expect(tracker.unsafeStartsAfterStreamEnd).toEqual([]);
        // Cut-off calls never run.
        if (turn.cutLast && turn.calls.length > 0) {
          expect(tracker.starts).not.toContain(`call_${turn.calls.length - 1}`);
        }
      }),
      { numRuns: runs },
    );
  }, 120_000);

  it('runToolBatches gives one result per call in order and keeps unsafe calls alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callArbitrary, { maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        async (calls, limit) => {
          const tracker = new Tracker();
          const tools = standardTools(tracker, tickSleep);
          const context = createToolUseContext({ cwd: process.cwd(), tools, maxConcurrency: limit });
          const blocks = calls.map((call, index) => ({
            type: 'tool_use' as const,
            id: `call_${index}`,
            name: call.tool,
            input: { ms: call.ticks, fail: call.fail, readOnly: call.readOnly },
          }));
          const ids: string[] = [];
          for await (const event of runToolBatches(blocks, { runTool: directRunner(tools), context })) {
            if (event.type === 'tool_result') ids.push(event.toolUseId);
          }
          expect(ids).toEqual(blocks.map((block) => block.id));
          expect(tracker.violations).toEqual([]);
          expect(tracker.maxRunning).toBeLessThanOrEqual(limit);
          expect(tracker.running.size).toBe(0);
        },
      ),
      { numRuns: Math.max(100, Math.floor(runs / 10)) },
    );
  }, 120_000);
});
