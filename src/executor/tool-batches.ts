import type { AnyTool, RunToolUse, ToolUseBlock, ToolUseContext } from '../core/index.ts';
import { findTool, isCallConcurrencySafe } from './call-safety.ts';
import type { ExecutorEvent } from './executor-events.ts';
import { StreamingToolExecutor, type StreamingToolExecutorOptions } from './streaming-tool-executor.ts';

/** A run of calls that execute together (`concurrent`) or one call that runs alone. */
export interface ToolBatch {
  concurrent: boolean;
  blocks: ToolUseBlock[];
}

/**
 * Splits a finished message's calls into batches: adjacent concurrency-safe calls share a batch,
 * every other call (unsafe, unknown tool, input the schema rejects) gets a batch of its own. This is
 * the schedule {@link runToolBatches} follows; it is exported for callers that want to show it.
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

/**
 * Runs the calls of a message that arrived whole (providers that do not stream): batch by batch,
 * concurrent batches through a pool of `maxConcurrency`, results in call order, progress at once.
 * Modifiers of a concurrent batch apply in call order when it ends; a lone call's apply at once.
 *
 * It is the streaming executor with every block delivered at once, so sibling cancellation,
 * interrupts and unknown tools behave exactly as in a streamed turn. A consumer that stops reading
 * early interrupts the calls still running and waits until they have settled.
 */
export async function* runToolBatches(
  blocks: readonly ToolUseBlock[],
  options: RunToolBatchesOptions,
): AsyncGenerator<ExecutorEvent, void> {
  const executorOptions: StreamingToolExecutorOptions = {
    runTool: options.runTool,
    context: options.context,
  };
  if (options.tools) executorOptions.tools = options.tools;
  if (options.maxConcurrency !== undefined) executorOptions.maxConcurrency = options.maxConcurrency;
  const executor = new StreamingToolExecutor(executorOptions);
  let finished = false;
  try {
    for (const block of blocks) executor.addToolUse(block);
    executor.endStream('tool_use');
    yield* executor.events();
    finished = true;
  } finally {
    if (!finished) executor.interrupt();
    await executor.settled();
  }
  options.onContext?.(executor.context);
}
