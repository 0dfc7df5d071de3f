/**
 * The streaming executor: tools start while the model is still talking. Concurrency-safe calls run
 * together up to a limit, every other call alone and in order; results go back in call order.
 */
export { AssistantMessageBuilder } from './assistant-message-builder.ts';
export {
  callCancelsSiblings,
  describeCall,
  findTool,
  isCallConcurrencySafe,
} from './call-safety.ts';
export type { CallOutcome, ExecutorEvent } from './executor-events.ts';
export { type TurnEvent, type TurnOutcome, runStreamingTurn } from './run-streaming-turn.ts';
export { StreamingToolExecutor, type StreamingToolExecutorOptions } from './streaming-tool-executor.ts';
export {
  partitionToolCalls,
  type RunToolBatchesOptions,
  runToolBatches,
  type ToolBatch,
} from './tool-batches.ts';
