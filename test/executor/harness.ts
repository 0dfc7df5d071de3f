import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import {
  type AnyTool,
  buildTool,
  EfferentError,
  emptyUsage,
  type RunToolUse,
  type StopReason,
  type StreamEvent,
  type ToolRunEvent,
} from '../../src/core/index.ts';

/** Watches calls as they run, so tests can check overlap and concurrency without timestamps. */
export class Tracker {
  readonly running = new Map<string, boolean>(); // id -> safe
  readonly violations: string[] = [];
  readonly starts: string[] = [];
  readonly ends: string[] = [];
  maxRunning = 0;
  /** Set by a test when it interrupts the turn; nothing may start after. */
  interrupted = false;
  /** Set by a test once the model stream has ended; unsafe calls started after are listed. */
  streamEnded = false;
  readonly unsafeStartsAfterStreamEnd: string[] = [];

  begin(id: string, safe: boolean): void {
    if (this.interrupted) this.violations.push(`${id} started after the interrupt`);
    const unsafeRunning = [...this.running.values()].some((value) => !value);
    if (!safe && this.running.size > 0)
      this.violations.push(`unsafe ${id} started beside ${[...this.running.keys()]}`);
    if (unsafeRunning) this.violations.push(`${id} started while an unsafe call ran`);
    if (this.streamEnded && !safe) this.unsafeStartsAfterStreamEnd.push(id);
    this.running.set(id, safe);
    this.starts.push(id);
    this.maxRunning = Math.max(this.maxRunning, this.running.size);
  }

  end(id: string): void {
    this.running.delete(id);
    this.ends.push(id);
  }
}

const callInput = z.object({
  ms: z.number().default(0),
  fail: z.boolean().optional(),
  /** For Shell: whether this command is read-only (so concurrency-safe). */
  readOnly: z.boolean().optional(),
  progress: z.number().optional(),
  ignoreAbort: z.boolean().optional(),
});
type CallInput = z.infer<typeof callInput>;

/** Waits `ms`; rejects when the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Real timers. */
export const realSleep: Sleep = (ms, signal) =>
  delay(ms, undefined, signal ? { signal } : {}).then(() => undefined);

/** `ms` event-loop turns instead of milliseconds: real interleavings, no wall time. */
export const tickSleep: Sleep = async (ticks, signal) => {
  for (let tick = 0; tick < ticks; tick += 1) {
    if (signal?.aborted) throw signal.reason;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (signal?.aborted) throw signal.reason;
};

async function work(
  input: CallInput,
  signal: AbortSignal,
  onProgress: (data: unknown) => void,
  sleep: Sleep,
): Promise<void> {
  const steps = (input.progress ?? 0) + 1;
  for (let step = 0; step < steps; step += 1) {
    if (step > 0) onProgress({ step });
    if (input.ignoreAbort) await sleep(input.ms / steps);
    else
      await sleep(input.ms / steps, signal).catch(() => {
        throw new EfferentError('aborted', 'aborted');
      });
  }
  if (input.fail) throw new EfferentError('tool_failed', 'the call failed as scripted');
}

interface TestToolOptions {
  name: string;
  safe: (input: CallInput) => boolean;
  cancelsSiblings?: boolean;
  interrupt?: 'cancel' | 'block';
  modifier?: (
    input: CallInput,
    toolUseId: string,
  ) =>
    | ((
        context: import('../../src/core/index.ts').ToolUseContext,
      ) => import('../../src/core/index.ts').ToolUseContext)
    | undefined;
}

/** A real tool whose timing and outcome come from its input: `{ms, fail, readOnly, progress}`. */
export function makeTool(options: TestToolOptions, tracker: Tracker, sleep: Sleep = realSleep): AnyTool {
  return buildTool<CallInput, string, unknown>({
    name: options.name,
    inputSchema: callInput as unknown as z.ZodType<CallInput>,
    prompt: `${options.name} test tool`,
    isConcurrencySafe: options.safe,
    isReadOnly: options.safe,
    cancelsSiblingsOnError: () => options.cancelsSiblings ?? false,
    interruptBehavior: () => options.interrupt ?? 'cancel',
    description: (input) => `${input.ms ?? 0}ms`,
    async call(input, context, _canUseTool, onProgress, toolUseId) {
      tracker.begin(toolUseId, options.safe(input));
      try {
        await work(
          input,
          context.run.abortController.signal,
          (data) => onProgress({ toolUseId, data }),
          sleep,
        );
        const modifier = options.modifier?.(input, toolUseId);
        return modifier
          ? { data: `${options.name} ok`, contextModifier: modifier }
          : { data: `${options.name} ok` };
      } finally {
        tracker.end(toolUseId);
      }
    },
  });
}

/** The standard set: Read (safe), Write (unsafe), Shell (safe when read-only, cancels siblings), Wait (blocks interrupts). */
export function standardTools(tracker: Tracker, sleep: Sleep = realSleep): AnyTool[] {
  return [
    makeTool({ name: 'Read', safe: () => true }, tracker, sleep),
    makeTool({ name: 'Write', safe: () => false }, tracker, sleep),
    makeTool(
      { name: 'Shell', safe: (input) => input.readOnly === true, cancelsSiblings: true },
      tracker,
      sleep,
    ),
    makeTool({ name: 'Wait', safe: () => true, interrupt: 'block' }, tracker, sleep),
  ];
}

/** A minimal pipeline: lookup, parse, call with progress, map the result; failures become error results. */
export function directRunner(tools: readonly AnyTool[]): RunToolUse {
  return async function* run(block, context): AsyncGenerator<ToolRunEvent, void> {
    const tool = tools.find((each) => each.name === block.name);
    const error = (text: string): ToolRunEvent => ({
      type: 'result',
      result: { type: 'tool_result', toolUseId: block.id, content: text, isError: true },
      newMessages: [],
    });
    if (!tool) return yield error(`no tool ${block.name}`);
    const parsed = tool.inputSchema.safeParse(block.input);
    if (!parsed.success) return yield error('invalid input');
    if (context.run.abortController.signal.aborted) return yield error('aborted before start');
    const progress: ToolRunEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    const call = tool
      .call(
        parsed.data,
        context,
        async () => ({ behavior: 'allow', trace: [] }),
        (event: { data: unknown }) => {
          progress.push({ type: 'progress', toolUseId: block.id, data: event.data });
          wake?.();
        },
        block.id,
      )
      .finally(() => {
        finished = true;
        wake?.();
      });
    call.catch(() => {});
    while (!finished || progress.length > 0) {
      const next = progress.shift();
      if (next) yield next;
      else
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
    }
    try {
      const result = await call;
      const event: ToolRunEvent = {
        type: 'result',
        result: tool.mapResultToBlock(result.data, block.id),
        newMessages: [],
      };
      if (result.contextModifier) event.contextModifier = result.contextModifier;
      yield event;
    } catch (caught) {
      yield error(caught instanceof Error ? caught.message : String(caught));
    }
  };
}

/** One step of a scripted model stream: wait `after` ms, then emit. */
export interface StreamStep {
  after: number;
  event: StreamEvent;
}

/** A tool_use block as start, one delta and end, all at the same moment. */
export function toolUseSteps(
  after: number,
  id: string,
  name: string,
  input: Record<string, unknown>,
): StreamStep[] {
  return [
    { after, event: { type: 'tool_use_start', id, name } },
    { after: 0, event: { type: 'tool_input_delta', id, partialJson: JSON.stringify(input) } },
    { after: 0, event: { type: 'tool_use_end', id, name, input } },
  ];
}

/** The closing event of a turn. */
export function endStep(after: number, stopReason: StopReason = 'tool_use'): StreamStep {
  return { after, event: { type: 'message_end', stopReason, usage: { ...emptyUsage(), outputTokens: 10 } } };
}

/** Replays steps with real timers. */
export async function* scriptedStream(
  steps: readonly StreamStep[],
  signal?: AbortSignal,
  sleep: Sleep = realSleep,
): AsyncGenerator<StreamEvent> {
  yield { type: 'message_start' };
  for (const step of steps) {
    if (step.after > 0) await sleep(step.after, signal).catch(() => undefined);
    if (signal?.aborted) {
      yield { type: 'error', message: 'aborted' };
      return;
    }
    yield step.event;
  }
}
