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

/**
 * The calls of a run waiting on its signal: one listener per signal, added once, however many calls
 * run under it (adding and removing an event listener per call costs more than the rest of this step).
 */
const abortWatchers = new WeakMap<AbortSignal, Set<() => void>>();

function watchAbort(signal: AbortSignal, onAbort: () => void): void {
  let watchers = abortWatchers.get(signal);
  if (watchers === undefined) {
    const waiting = new Set<() => void>();
    watchers = waiting;
    abortWatchers.set(signal, waiting);
    signal.addEventListener(
      'abort',
      () => {
        for (const watcher of [...waiting]) watcher();
        waiting.clear();
      },
      { once: true },
    );
  }
  watchers.add(onAbort);
}

/**
 * Step 10: run `call()`, yielding each progress event as soon as the tool emits it. When the context
 * is aborted the call ends at once as `aborted`; the tool is expected to stop on the same signal, and
 * anything it does after that is ignored.
 */
export async function* callTool(request: CallRequest): AsyncGenerator<ProgressEvent, CallOutcome> {
  const { tool, input, context, toolUseId, prepared } = request;
  const signal = context.run.abortController.signal;
  const queue: ProgressEvent[] = [];
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };

  let outcome: CallOutcome | undefined;
  const running = Promise.resolve()
    .then(() => {
      const onProgress = (progress: { toolUseId: string; data: unknown }) => {
        if (outcome) return;
        queue.push({ type: 'progress', toolUseId: progress.toolUseId, data: progress.data });
        notify();
      };
      return prepared?.input === input
        ? prepared.call(context, request.canUseTool, onProgress, toolUseId)
        : tool.call(input, context, request.canUseTool, onProgress, toolUseId);
    })
    .then(
      (result: ToolResult<unknown>) => {
        outcome ??= { kind: 'returned', result };
      },
      (error: unknown) => {
        outcome ??= { kind: 'threw', error };
      },
    )
    .finally(notify);

  const onAbort = (): void => {
    outcome ??= { kind: 'aborted' };
    notify();
  };
  if (signal.aborted) onAbort();
  else watchAbort(signal, onAbort);

  try {
    while (true) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (outcome) return outcome;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    abortWatchers.get(signal)?.delete(onAbort);
    // A tool that ignores the abort keeps running; its late rejection must not become unhandled.
    void running;
  }
}
