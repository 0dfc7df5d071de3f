import {
  type AnyTool,
  isBadStopReason,
  type RunToolUse,
  type StopReason,
  type ToolUseBlock,
  type ToolUseContext,
} from '../core/index.ts';
import { prepareToolUse } from '../pipeline/index.ts';
import { callCancelsSiblings, callInterruptBehavior, describeCall, findTool } from './call-safety.ts';
import { EventQueue } from './event-queue.ts';
import type { CallOutcome, ExecutorEvent } from './executor-events.ts';
import { runOneCall } from './run-one-call.ts';
import {
  interruptedText,
  invalidInputJsonText,
  mutatingCallSkippedText,
  notReceivedText,
  siblingCancelledText,
  syntheticErrorResult,
  unknownToolText,
} from './synthetic-results.ts';
import { explainCancellation, resultEvent, type TrackedCall } from './tracked-call.ts';

/** How a streaming executor is set up for one model turn. */
export interface StreamingToolExecutorOptions {
  /** The pipeline: one tool_use in, progress and one result out. */
  runTool: RunToolUse;
  /** The context calls start from; context modifiers update it as calls finish. */
  context: ToolUseContext;
  /** The pool to look tools up in; defaults to `context.options.tools`. */
  tools?: readonly AnyTool[];
  /** How many concurrency-safe calls may run at once; defaults to `context.options.maxConcurrency`. */
  maxConcurrency?: number;
  /** Start nothing until the stream has ended (the classic behaviour; also a benchmark baseline). */
  executeAfterStreamEnd?: boolean;
  /**
   * Receives every event synchronously, at the moment it happens, instead of through `events()`
   * (which then only signals the end). Lets a caller interleave tool events with stream events in
   * causal order. If it throws, the executor carries on (every call still settles and `events()` still
   * ends) and `events()` rethrows the first such error at its end.
   */
  onEvent?: (event: ExecutorEvent) => void;
}

/**
 * Runs a turn's tool calls while the model is still streaming. Each call starts as soon as its
 * tool_use block is complete: concurrency-safe calls together (up to a limit), every other call alone
 * and in order. Results come out in call order, progress at once. See docs in `index.ts`.
 */
export class StreamingToolExecutor {
  readonly #runTool: RunToolUse;
  readonly #tools: readonly AnyTool[];
  readonly #limit: number;
  readonly #afterStreamEnd: boolean;
  readonly #onEvent: ((event: ExecutorEvent) => void) | undefined;
  readonly #events = new EventQueue<ExecutorEvent>();
  readonly #calls: TrackedCall[] = [];
  readonly #byId = new Map<string, TrackedCall>();
  readonly #pendingModifiers: Array<{
    index: number;
    modifier: (context: ToolUseContext) => ToolUseContext;
  }> = [];
  readonly #listening = new AbortController();
  readonly #settled: Array<Promise<void>> = [];
  #context: ToolUseContext;
  #streamStop: StopReason | undefined;
  #siblingFailure: string | undefined;
  #interrupted = false;
  #nextToYield = 0;
  /** The first exception the `onEvent` callback threw, rethrown by `events()` once everything settled. */
  #callbackError: { error: unknown } | undefined;

  constructor(options: StreamingToolExecutorOptions) {
    this.#runTool = options.runTool;
    this.#context = options.context;
    this.#tools = options.tools ?? options.context.options.tools;
    this.#limit = Math.max(1, options.maxConcurrency ?? options.context.options.maxConcurrency);
    this.#afterStreamEnd = options.executeAfterStreamEnd ?? false;
    this.#onEvent = options.onEvent;
    // The context's signal is an explicit interrupt (Ctrl+C, SIGINT, SIGTERM, abort()): it stops "block" tools too.
    const signal = options.context.run.abortController.signal;
    if (signal.aborted) this.interrupt({ includeBlocking: true });
    else
      signal.addEventListener('abort', () => this.interrupt({ includeBlocking: true }), {
        once: true,
        signal: this.#listening.signal,
      });
  }

  /** The context after the modifiers of finished calls were applied. */
  get context(): ToolUseContext {
    return this.#context;
  }

  /** A tool_use block began streaming; it holds its place in the result order. */
  startToolUse(id: string, name: string): void {
    if (this.#byId.has(id) || this.#streamStop !== undefined) return;
    const call: TrackedCall = {
      index: this.#calls.length,
      id,
      name,
      status: 'receiving',
      safe: false,
      ran: false,
    };
    this.#calls.push(call);
    this.#byId.set(id, call);
  }

  /** A tool_use block is complete: it is queued and starts as soon as the schedule allows. */
  addToolUse(block: ToolUseBlock, inputError?: string): void {
    if (this.#streamStop !== undefined) return;
    if (!this.#byId.has(block.id)) this.startToolUse(block.id, block.name);
    const call = this.#byId.get(block.id);
    if (call?.status !== 'receiving') return; // a duplicate id: the first block wins
    call.block = block;
    call.name = block.name;
    const tool = findTool(this.#tools, block.name);
    if (tool) call.tool = tool;
    if (inputError !== undefined) this.#completeSynthetic(call, invalidInputJsonText(inputError));
    else if (this.#interrupted) this.#completeSynthetic(call, interruptedText(block.name, false));
    else if (this.#siblingFailure) this.#completeSynthetic(call, siblingCancelledText(this.#siblingFailure));
    else if (!tool) {
      this.#completeSynthetic(
        call,
        unknownToolText(
          block.name,
          this.#tools.map((each) => each.name),
        ),
      );
    } else {
      // Prepared once here; the pipeline adopts it, so scheduling costs no second parse.
      const prepared = prepareToolUse(tool, block.input, this.#context);
      if (prepared) call.prepared = prepared;
      call.safe = prepared?.isConcurrencySafe() ?? false;
      call.status = 'queued';
    }
    this.#advance();
  }

  /**
   * The model's stream ended. Calls whose input never fully arrived are not run; after a bad ending
   * (max_tokens, error, refusal, abort) calls that would change state and have not started are not run.
   */
  endStream(stopReason: StopReason): void {
    if (this.#streamStop !== undefined) return;
    this.#streamStop = stopReason;
    const bad = isBadStopReason(stopReason);
    for (const call of this.#calls) {
      if (call.status === 'receiving')
        this.#completeSynthetic(call, notReceivedText(bad ? stopReason : 'error'));
      else if (bad && call.status === 'queued' && !call.safe) {
        this.#completeSynthetic(call, mutatingCallSkippedText(stopReason));
      }
    }
    this.#advance();
  }

  /**
   * The user interrupted: calls not started are not run; running calls whose tool says 'cancel' are
   * aborted; 'block' calls run to completion unless `includeBlocking` (an explicit interrupt, which the
   * context's abort signal triggers) says every running call stops.
   */
  interrupt(options: { includeBlocking?: boolean } = {}): void {
    if (this.#interrupted && !options.includeBlocking) return;
    this.#interrupted = true;
    for (const call of this.#calls) {
      if (call.status === 'queued') this.#completeSynthetic(call, interruptedText(call.name, false));
      else if (
        call.status === 'executing' &&
        (options.includeBlocking || callInterruptBehavior(call.tool) === 'cancel')
      ) {
        this.#abortCall(call, interruptedText(call.name, true));
      }
    }
    this.#advance();
  }

  /** Progress as it happens, then results in call order; ends after the stream ended and every call finished. */
  async *events(): AsyncGenerator<ExecutorEvent, void> {
    yield* this.#events;
    if (this.#callbackError) throw this.#callbackError.error;
  }

  /** Resolves when every started call has settled (used to prove nothing is left running). */
  async settled(): Promise<void> {
    await Promise.all(this.#settled);
  }

  /** The outcome of every call in call order (complete once `events()` has ended). */
  outcomes(): Array<{ toolUseId: string; name: string; outcome: CallOutcome | undefined }> {
    return this.#calls.map((call) => ({ toolUseId: call.id, name: call.name, outcome: call.outcome }));
  }

  #executingCount(): { total: number; unsafe: number } {
    let total = 0;
    let unsafe = 0;
    for (const call of this.#calls) {
      if (call.status !== 'executing') continue;
      total += 1;
      if (!call.safe) unsafe += 1;
    }
    return { total, unsafe };
  }

  #canStart(call: TrackedCall): boolean {
    const executing = this.#executingCount();
    if (executing.total === 0) return true;
    return call.safe && executing.unsafe === 0 && executing.total < this.#limit;
  }

  /** Starts what the schedule allows, publishes finished results in order, and closes when done. */
  #advance(): void {
    if (!this.#afterStreamEnd || this.#streamStop !== undefined) {
      for (const call of this.#calls) {
        // A call still streaming may turn out unsafe, so nothing after it may overtake it.
        if (call.status === 'receiving') break;
        if (call.status !== 'queued') continue;
        if (this.#canStart(call)) {
          // An unsafe call starts only when nothing runs, so the batch before it is over.
          if (!call.safe) this.#applyPendingModifiers();
          this.#start(call);
        } else if (!call.safe) break; // keeps unsafe calls in order and alone
      }
    }
    // Nothing runs and no waiting safe call could join the batch: it is over.
    if (this.#executingCount().total === 0) this.#applyPendingModifiers();
    while (this.#nextToYield < this.#calls.length) {
      const call = this.#calls[this.#nextToYield];
      if (call?.status !== 'completed' || !call.outcome) break;
      call.status = 'yielded';
      this.#nextToYield += 1;
      this.#emit(resultEvent(call, call.outcome, this.#context.run.now()));
    }
    if (this.#streamStop !== undefined && this.#nextToYield === this.#calls.length && !this.#events.closed) {
      this.#listening.abort();
      this.#events.close();
    }
  }

  #start(call: TrackedCall): void {
    const block = call.block;
    if (!block) return;
    call.status = 'executing';
    call.ran = true;
    const controller = new AbortController();
    call.controller = controller;
    const context: ToolUseContext = {
      ...this.#context,
      run: { ...this.#context.run, abortController: controller },
    };
    this.#emit({
      type: 'tool_started',
      toolUseId: call.id,
      name: call.name,
      at: this.#context.run.now(),
    });
    const settled = runOneCall(
      this.#runTool,
      block,
      context,
      (data) => {
        this.#emit({ type: 'tool_progress', toolUseId: call.id, data, at: this.#context.run.now() });
      },
      call.prepared,
    ).then((outcome) => this.#finish(call, outcome));
    this.#settled.push(settled);
  }

  #finish(call: TrackedCall, outcome: CallOutcome): void {
    const final = explainCancellation(call, outcome);
    call.outcome = final;
    call.status = 'completed';
    if (call.cancelText === undefined && final.result.isError && call.block) {
      const cancels = call.prepared
        ? call.prepared.cancelsSiblingsOnError()
        : callCancelsSiblings(call.tool, call.block.input);
      if (cancels) this.#cancelSiblings(call);
    }
    if (final.contextModifier) {
      if (call.safe) this.#pendingModifiers.push({ index: call.index, modifier: final.contextModifier });
      else this.#context = final.contextModifier(this.#context);
    }
    this.#advance();
  }

  /**
   * Modifiers of concurrent calls wait until their batch is over, then apply in call order; every call
   * of a batch starts from the same context, whatever the concurrency limit.
   */
  #applyPendingModifiers(): void {
    this.#pendingModifiers.sort((left, right) => left.index - right.index);
    for (const { modifier } of this.#pendingModifiers.splice(0)) this.#context = modifier(this.#context);
  }

  #cancelSiblings(failed: TrackedCall): void {
    const label = describeCall(failed.tool, failed.name, failed.block?.input ?? {});
    this.#siblingFailure = label;
    const text = siblingCancelledText(label);
    for (const call of this.#calls) {
      if (call === failed) continue;
      if (call.status === 'queued') this.#completeSynthetic(call, text);
      else if (call.status === 'executing') this.#abortCall(call, text);
    }
  }

  #abortCall(call: TrackedCall, text: string): void {
    if (call.cancelText !== undefined) return;
    call.cancelText = text;
    call.controller?.abort(new Error(text));
  }

  #emit(event: ExecutorEvent): void {
    if (!this.#onEvent) {
      this.#events.push(event);
      return;
    }
    // A throwing callback must not leave the schedule half-advanced (the turn would never end).
    try {
      this.#onEvent(event);
    } catch (error) {
      this.#callbackError ??= { error };
    }
  }

  #completeSynthetic(call: TrackedCall, text: string): void {
    call.outcome = { result: syntheticErrorResult(call.id, text), newMessages: [] };
    call.status = 'completed';
  }
}
