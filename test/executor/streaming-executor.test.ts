import { describe, expect, it } from 'vitest';
import { createToolUseContext, type ToolUseContext, toolResultText } from '../../src/core/index.ts';
import { runStreamingTurn, type TurnEvent, type TurnOutcome } from '../../src/executor/index.ts';
import {
  directRunner,
  endStep,
  makeTool,
  type StreamStep,
  scriptedStream,
  standardTools,
  Tracker,
  toolUseSteps,
} from './harness.ts';

interface TurnRun {
  events: TurnEvent[];
  outcome: TurnOutcome;
  tracker: Tracker;
  /** When each event arrived, in ms since the turn started. */
  times: Map<TurnEvent, number>;
}

async function runTurn(
  steps: StreamStep[],
  options: {
    maxConcurrency?: number;
    executeAfterStreamEnd?: boolean;
    abortAfterMs?: number;
    extraTools?: (tracker: Tracker) => ReturnType<typeof makeTool>[];
    context?: (context: ToolUseContext) => ToolUseContext;
  } = {},
): Promise<TurnRun> {
  const tracker = new Tracker();
  const tools = [...standardTools(tracker), ...(options.extraTools?.(tracker) ?? [])];
  let context = createToolUseContext({
    cwd: process.cwd(),
    tools,
    maxConcurrency: options.maxConcurrency ?? 10,
  });
  if (options.context) context = options.context(context);
  const controller = context.run.abortController;
  const timer =
    options.abortAfterMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(), options.abortAfterMs);
  const started = performance.now();
  const events: TurnEvent[] = [];
  const times = new Map<TurnEvent, number>();
  let outcome: TurnOutcome | undefined;
  const turnOptions = { runTool: directRunner(tools), context };
  if (options.executeAfterStreamEnd) Object.assign(turnOptions, { executeAfterStreamEnd: true });
  for await (const event of runStreamingTurn(scriptedStream(steps, controller.signal), turnOptions)) {
    events.push(event);
    times.set(event, performance.now() - started);
    if (event.type === 'turn_end') outcome = event.outcome;
  }
  clearTimeout(timer);
  if (!outcome) throw new Error('no turn_end');
  return { events, outcome, tracker, times };
}

const texts = (outcome: TurnOutcome) => outcome.toolResults.map((result) => toolResultText(result));
const timeOf = (run: TurnRun, predicate: (event: TurnEvent) => boolean): number => {
  const event = run.events.find(predicate);
  if (!event) throw new Error('event not found');
  return run.times.get(event) ?? Number.NaN;
};

describe('runStreamingTurn', () => {
  it('starts tools as soon as their block completes, before the message ends', async () => {
    const run = await runTurn([
      ...toolUseSteps(0, 'a', 'Read', { ms: 30 }),
      ...toolUseSteps(40, 'b', 'Read', { ms: 30 }),
      endStep(250),
    ]);
    const messageEnd = timeOf(run, (event) => event.type === 'stream' && event.event.type === 'message_end');
    const firstResult = timeOf(run, (event) => event.type === 'tool_result' && event.toolUseId === 'a');
    expect(firstResult).toBeLessThan(messageEnd - 100);
    expect(run.outcome.toolResults.map((result) => result.toolUseId)).toEqual(['a', 'b']);
    expect(texts(run.outcome)).toEqual(['Read ok', 'Read ok']);
    expect(run.outcome.assistantMessage.content.map((block) => block.type)).toEqual(['tool_use', 'tool_use']);
  });

  it('with executeAfterStreamEnd, starts nothing before the stream ends', async () => {
    const run = await runTurn([...toolUseSteps(0, 'a', 'Read', { ms: 10 }), endStep(80)], {
      executeAfterStreamEnd: true,
    });
    const messageEnd = timeOf(run, (event) => event.type === 'stream' && event.event.type === 'message_end');
    const started = timeOf(run, (event) => event.type === 'tool_started');
    expect(started).toBeGreaterThanOrEqual(messageEnd);
    expect(texts(run.outcome)).toEqual(['Read ok']);
  });

  it('returns results in call order even when later calls finish first', async () => {
    const run = await runTurn([
      ...toolUseSteps(0, 'slow', 'Read', { ms: 80 }),
      ...toolUseSteps(0, 'fast', 'Read', { ms: 5 }),
      endStep(0),
    ]);
    const order = run.events.filter((event) => event.type === 'tool_result').map((event) => event.toolUseId);
    expect(order).toEqual(['slow', 'fast']);
    expect(run.tracker.ends).toEqual(['fast', 'slow']);
  });

  it('runs unsafe calls alone and in order, and safe calls after them wait', async () => {
    const run = await runTurn([
      ...toolUseSteps(0, 'r1', 'Read', { ms: 20 }),
      ...toolUseSteps(0, 'w1', 'Write', { ms: 20 }),
      ...toolUseSteps(0, 'r2', 'Read', { ms: 20 }),
      ...toolUseSteps(0, 'w2', 'Write', { ms: 20 }),
      endStep(0),
    ]);
    expect(run.tracker.violations).toEqual([]);
    expect(run.tracker.starts).toEqual(['r1', 'w1', 'r2', 'w2']);
  });

  it('never runs more safe calls at once than the limit', async () => {
    const steps = Array.from({ length: 12 }, (_, index) =>
      toolUseSteps(0, `r${index}`, 'Read', { ms: 15 }),
    ).flat();
    const run = await runTurn([...steps, endStep(0)], { maxConcurrency: 3 });
    expect(run.tracker.maxRunning).toBe(3);
    expect(run.outcome.toolResults).toHaveLength(12);
  });

  it('emits progress at once, before earlier calls finish', async () => {
    const run = await runTurn([
      ...toolUseSteps(0, 'slow', 'Read', { ms: 120 }),
      ...toolUseSteps(0, 'chatty', 'Read', { ms: 40, progress: 1 }),
      endStep(0),
    ]);
    const progress = timeOf(run, (event) => event.type === 'tool_progress' && event.toolUseId === 'chatty');
    const slowResult = timeOf(run, (event) => event.type === 'tool_result' && event.toolUseId === 'slow');
    expect(progress).toBeLessThan(slowResult - 50);
  });

  it('answers an unknown tool at once with an error naming the available tools', async () => {
    const run = await runTurn([...toolUseSteps(0, 'x', 'Nope', {}), endStep(100)]);
    const result = timeOf(run, (event) => event.type === 'tool_result');
    expect(result).toBeLessThan(80);
    expect(run.outcome.toolResults[0]?.isError).toBe(true);
    expect(texts(run.outcome)[0]).toMatch(/No such tool available: Nope.*Read/);
  });

  it('a failing shell command cancels its running siblings; other failures do not cascade', async () => {
    const run = await runTurn([
      ...toolUseSteps(0, 'long', 'Read', { ms: 300 }),
      ...toolUseSteps(0, 'bad', 'Shell', { ms: 10, readOnly: true, fail: true }),
      ...toolUseSteps(30, 'later', 'Read', { ms: 5 }),
      endStep(50),
    ]);
    const [long, bad, later] = texts(run.outcome);
    expect(long).toBe('Cancelled: parallel tool call Shell(10ms) errored');
    expect(bad).toContain('failed as scripted');
    expect(later).toBe('Cancelled: parallel tool call Shell(10ms) errored');

    const calm = await runTurn([
      ...toolUseSteps(0, 'long', 'Read', { ms: 60 }),
      ...toolUseSteps(0, 'bad', 'Read', { ms: 5, fail: true }),
      endStep(0),
    ]);
    expect(texts(calm.outcome)[0]).toBe('Read ok');
  });

  it('an explicit interrupt (the context aborts) cancels "cancel" and "block" tools alike, and runs nothing new', async () => {
    const run = await runTurn(
      [
        ...toolUseSteps(0, 'cancelable', 'Read', { ms: 500 }),
        ...toolUseSteps(0, 'blocking', 'Wait', { ms: 120 }),
        ...toolUseSteps(0, 'write', 'Write', { ms: 5 }),
        endStep(400),
      ],
      { abortAfterMs: 40 },
    );
    const [cancelable, blocking, write] = texts(run.outcome);
    expect(cancelable).toMatch(/Interrupted by the user: Read was cancelled while running/);
    expect(blocking).toMatch(/Interrupted by the user: Wait was cancelled while running/);
    expect(write).toMatch(/Interrupted by the user: Write was not run/);
    expect(run.tracker.starts).toEqual(['cancelable', 'blocking']);
    expect(run.tracker.running.size).toBe(0);
  });

  it('after max_tokens, does not run half-received calls or unstarted mutating calls', async () => {
    const run = await runTurn([
      ...toolUseSteps(0, 'read', 'Read', { ms: 60 }),
      ...toolUseSteps(0, 'write', 'Write', { ms: 5 }),
      { after: 0, event: { type: 'tool_use_start', id: 'cut', name: 'Write' } },
      { after: 0, event: { type: 'tool_input_delta', id: 'cut', partialJson: '{"ms":' } },
      endStep(10, 'max_tokens'),
    ]);
    const [read, write, cut] = texts(run.outcome);
    expect(read).toBe('Read ok');
    expect(write).toMatch(/not run: the output token limit was reached and the call would change state/);
    expect(cut).toMatch(/not run: the output token limit was reached before its input was complete/);
    expect(run.tracker.starts).toEqual(['read']);
    expect(run.outcome.stopReason).toBe('max_tokens');
    expect(run.outcome.assistantMessage.content).toHaveLength(3);
  });

  it('does not run a call whose streamed JSON did not parse', async () => {
    const run = await runTurn([
      { after: 0, event: { type: 'tool_use_start', id: 'j', name: 'Read' } },
      {
        after: 0,
        event: { type: 'tool_use_end', id: 'j', name: 'Read', input: {}, inputError: 'Unexpected end' },
      },
      endStep(0),
    ]);
    expect(texts(run.outcome)[0]).toMatch(/not valid JSON \(Unexpected end\)/);
    expect(run.tracker.starts).toEqual([]);
  });

  it('applies context modifiers: queued for a concurrent batch, at once for a lone call', async () => {
    const seen: Record<string, string> = {};
    const run = await runTurn(
      [
        ...toolUseSteps(0, 'm1', 'Mark', { ms: 30 }),
        ...toolUseSteps(0, 'm2', 'Mark', { ms: 10 }),
        ...toolUseSteps(0, 'probe', 'Probe', { ms: 1 }),
        endStep(0),
      ],
      {
        extraTools: (tracker) => [
          makeTool(
            {
              name: 'Mark',
              safe: () => true,
              modifier: (_input, id) => (context) => ({
                ...context,
                run: { ...context.run, cwd: `${context.run.cwd}/${id}` },
              }),
            },
            tracker,
          ),
          makeTool(
            {
              name: 'Probe',
              safe: () => false,
              modifier: (_input, id) => (context) => {
                seen[id] = context.run.cwd;
                return context;
              },
            },
            tracker,
          ),
        ],
        context: (context) => ({ ...context, run: { ...context.run, cwd: '/root' } }),
      },
    );
    // m2 finished first, but modifiers apply in call order once the batch is over.
    expect(run.outcome.context.run.cwd).toBe('/root/m1/m2');
    expect(seen['probe']).toBe('/root/m1/m2');
  });

  it('reports a stream error as the stop reason and still answers every call', async () => {
    const run = await runTurn([
      ...toolUseSteps(0, 'w', 'Write', { ms: 5 }),
      { after: 0, event: { type: 'tool_use_start', id: 'r', name: 'Read' } },
      { after: 5, event: { type: 'error', message: 'overloaded', retryable: true } },
    ]);
    expect(run.outcome.stopReason).toBe('error');
    expect(run.outcome.errorMessage).toBe('overloaded');
    expect(run.outcome.toolResults.map((result) => result.toolUseId)).toEqual(['w', 'r']);
    expect(texts(run.outcome)[1]).toMatch(/response stream failed before its input was complete/);
  });
});
