import type { AnyTool, RunToolUse, ToolUseBlock, ToolUseContext } from '../core/index.ts';
import {
  callCancelsSiblings,
  callInterruptBehavior,
  describeCall,
  findTool,
  isCallConcurrencySafe,
} from './call-safety.ts';
import { EventQueue } from './event-queue.ts';
import type { CallOutcome, ExecutorEvent } from './executor-events.ts';
import { runOneCall } from './run-one-call.ts';
import {
  interruptedText,
  siblingCancelledText,
  syntheticErrorResult,
  unknownToolText,
} from './synthetic-results.ts';

/** A run of calls that execute together (`concurrent`) or one call that runs alone. */
export interface ToolBatch {
  concurrent: boolean;
  blocks: ToolUseBlock[];
}

/**
 * Splits a finished message's calls into batches: adjacent concurrency-safe calls share a batch,
 * every other call (unsafe, unknown tool, input the schema rejects) gets a batch of its own.
 */
export function partitionToolCalls(blocks: readonly ToolUseBlock[], tools: readonly AnyTool[]): ToolBatch[] {
  const batches: ToolBatch[] = [];
  for (const block of blocks) {
    const safe = isCallConcurrencySafe(findTool(tools, block.name), block.input);
    const last = batches.at(-1);
    if (safe && last?.concurrent) last.blocks.push(block);
    else batches.push({ concurrent: safe, blocks: [block] });
  }
  return batches;
}

/** How {@link runToolBatches} runs a finished message's calls. */
export interface RunToolBatchesOptions {
  runTool: RunToolUse;
  context: ToolUseContext;
  tools?: readonly AnyTool[];
  maxConcurrency?: number;
  /** Receives the context after every batch's modifiers, once all batches ran. */
  onContext?: (context: ToolUseContext) => void;
}

interface BatchState {
  context: ToolUseContext;
  siblingFailure: string | undefined;
  interrupted: boolean;
}

/**
 * Runs the calls of a message that arrived whole (providers that do not stream): batch by batch,
 * concurrent batches through a pool of `maxConcurrency`, results in call order, progress at once.
 * Modifiers of a concurrent batch apply in call order when it ends; a lone call's apply at once.
 */
export async function* runToolBatches(
  blocks: readonly ToolUseBlock[],
  options: RunToolBatchesOptions,
): AsyncGenerator<ExecutorEvent, void> {
  const tools = options.tools ?? options.context.options.tools;
  const limit = Math.max(1, options.maxConcurrency ?? options.context.options.maxConcurrency);
  const turnSignal = options.context.run.abortController.signal;
  const state: BatchState = { context: options.context, siblingFailure: undefined, interrupted: false };
  for (const batch of partitionToolCalls(blocks, tools)) {
    const events = new EventQueue<ExecutorEvent>();
    const done = runBatch(
      batch,
      tools,
      batch.concurrent ? limit : 1,
      state,
      options.runTool,
      events,
      turnSignal,
    );
    yield* events;
    await done;
  }
  options.onContext?.(state.context);
}

async function runBatch(
  batch: ToolBatch,
  tools: readonly AnyTool[],
  limit: number,
  state: BatchState,
  runTool: RunToolUse,
  events: EventQueue<ExecutorEvent>,
  turnSignal: AbortSignal,
): Promise<void> {
  const now = state.context.run.now;
  const outcomes: Array<{ outcome: CallOutcome; ran: boolean } | undefined> = [];
  const controllers = new Map<number, { controller: AbortController; tool: AnyTool | undefined }>();
  const cancelTexts = new Map<number, string>();
  const startContext = state.context;
  let nextToYield = 0;
  let nextToStart = 0;

  const publish = (): void => {
    for (let entry = outcomes[nextToYield]; entry; entry = outcomes[nextToYield]) {
      const block = batch.blocks[nextToYield] as ToolUseBlock;
      nextToYield += 1;
      const event: ExecutorEvent = {
        type: 'tool_result',
        toolUseId: block.id,
        name: block.name,
        result: entry.outcome.result,
        newMessages: entry.outcome.newMessages,
        ran: entry.ran,
        at: now(),
      };
      if (entry.outcome.stopReason !== undefined) event.stopReason = entry.outcome.stopReason;
      if (entry.outcome.errorClass !== undefined) event.errorClass = entry.outcome.errorClass;
      events.push(event);
    }
  };
  const onInterrupt = (): void => {
    state.interrupted = true;
    for (const [index, { controller, tool }] of controllers) {
      if (callInterruptBehavior(tool) !== 'cancel') continue;
      const block = batch.blocks[index] as ToolUseBlock;
      cancelTexts.set(index, interruptedText(block.name, true));
      controller.abort(new Error('interrupted'));
    }
  };
  const listening = new AbortController();
  if (turnSignal.aborted) state.interrupted = true;
  else turnSignal.addEventListener('abort', onInterrupt, { once: true, signal: listening.signal });

  const modifiers: Array<{ index: number; modifier: (context: ToolUseContext) => ToolUseContext }> = [];
  const worker = async (): Promise<void> => {
    for (let index = nextToStart++; index < batch.blocks.length; index = nextToStart++) {
      const block = batch.blocks[index] as ToolUseBlock;
      const tool = findTool(tools, block.name);
      const skipText = !tool
        ? unknownToolText(
            block.name,
            tools.map((each) => each.name),
          )
        : state.interrupted
          ? interruptedText(block.name, false)
          : state.siblingFailure
            ? siblingCancelledText(state.siblingFailure)
            : undefined;
      if (skipText !== undefined) {
        outcomes[index] = {
          outcome: { result: syntheticErrorResult(block.id, skipText), newMessages: [] },
          ran: false,
        };
        publish();
        continue;
      }
      const controller = new AbortController();
      controllers.set(index, { controller, tool });
      const context = batch.concurrent ? startContext : state.context;
      events.push({ type: 'tool_started', toolUseId: block.id, name: block.name, at: now() });
      let outcome = await runOneCall(
        runTool,
        block,
        { ...context, run: { ...context.run, abortController: controller } },
        (data) => events.push({ type: 'tool_progress', toolUseId: block.id, data, at: now() }),
      );
      controllers.delete(index);
      const cancelText = cancelTexts.get(index);
      if (cancelText !== undefined && outcome.result.isError) {
        outcome = {
          result: syntheticErrorResult(block.id, cancelText),
          newMessages: [],
          errorClass: 'aborted',
        };
      } else if (outcome.result.isError && !state.siblingFailure && callCancelsSiblings(tool, block.input)) {
        state.siblingFailure = describeCall(tool, block.name, block.input);
        for (const [other, running] of controllers) {
          cancelTexts.set(other, siblingCancelledText(state.siblingFailure));
          running.controller.abort(new Error('sibling failed'));
        }
      }
      if (outcome.contextModifier) {
        if (batch.concurrent) modifiers.push({ index, modifier: outcome.contextModifier });
        else state.context = outcome.contextModifier(state.context);
      }
      outcomes[index] = { outcome, ran: true };
      publish();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, batch.blocks.length) }, worker));
  listening.abort();
  modifiers.sort((left, right) => left.index - right.index);
  for (const { modifier } of modifiers) state.context = modifier(state.context);
  events.close();
}
