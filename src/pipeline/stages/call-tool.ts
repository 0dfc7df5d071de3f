import type {
  AnyTool,
  CanUseTool,
  PreparedCall,
  ToolResult,
  ToolRunEvent,
  ToolUseContext,
} from '../../core/index.ts';

/** A progress event as the runner yields it. */
export type ProgressEvent = Extract<ToolRunEvent, { type: 'progress' }>;

/** How `call()` ended. */
export type CallOutcome =
  | { kind: 'returned'; result: ToolResult<unknown> }
  | { kind: 'threw'; error: unknown }
  | { kind: 'aborted' };

/** Arguments of {@link callTool}. */
export interface CallRequest {
  tool: AnyTool;
  input: Record<string, unknown>;
  context: ToolUseContext;
  canUseTool: CanUseTool;
  toolUseId: string;
  /** The prepared call for `input`: it runs instead of `tool.call(input)`. */
  prepared?: PreparedCall;
}

/** One call under way: the progress events not yet yielded, and how the call ended once it has. */
class CallState {
  readonly queue: ProgressEvent[] = [];
  /** Resumes the generator waiting for the next event or the end. */
  wake: (() => void) | undefined = undefined;
  outcome: CallOutcome | undefined = undefined;

  notify(): void {
    const resume = this.wake;
    this.wake = undefined;
    resume?.();
  }

  progress(progress: { toolUseId: string; data: unknown }): void {
    if (this.outcome) return;
    this.queue.push({ type: 'progress', toolUseId: progress.toolUseId, data: progress.data });
    this.notify();
  }

  end(outcome: CallOutcome): void {
    this.outcome ??= outcome;
    this.notify();
  }

  /** The run's signal aborted: the call ends at once (this object is the signal's listener). */
  handleEvent(): void {
    this.end({ kind: 'aborted' });
  }
}

/**
 * Step 10: run `call()`, yielding each progress event as soon as the tool emits it. When the context
 * is aborted the call ends at once as `aborted`; the tool is expected to stop on the same signal, and
 * anything it does after that is ignored.
 */
export async function* callTool(request: CallRequest): AsyncGenerator<ProgressEvent, CallOutcome> {
  const { tool, input, context, toolUseId, prepared } = request;
  const signal = context.run.abortController.signal;
  // The callbacks below are written in place (no named closure per call) and share one state object.
  const state = new CallState();
  const running = Promise.resolve()
    .then(() =>
      prepared?.input === input
        ? prepared.call(context, request.canUseTool, (progress) => state.progress(progress), toolUseId)
        : tool.call(input, context, request.canUseTool, (progress) => state.progress(progress), toolUseId),
    )
    .then(
      (result: ToolResult<unknown>) => state.end({ kind: 'returned', result }),
      (error: unknown) => state.end({ kind: 'threw', error }),
    );

  if (signal.aborted) state.end({ kind: 'aborted' });
  else signal.addEventListener('abort', state, { once: true });

  try {
    while (true) {
      const next = state.queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (state.outcome) return state.outcome;
      await new Promise<void>((resolve) => {
        state.wake = resolve;
      });
    }
  } finally {
    // The run outlives the call: nothing of the call stays on its signal.
    signal.removeEventListener('abort', state);
    // A tool that ignores the abort keeps running; its late rejection must not become unhandled.
    void running;
  }
}
