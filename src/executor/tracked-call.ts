import type { AnyTool, PreparedCall, ToolUseBlock } from '../core/index.ts';
import type { CallOutcome, ExecutorEvent } from './executor-events.ts';
import { syntheticErrorResult } from './synthetic-results.ts';

/** Where a call is: its input streaming in, waiting, running, finished, or its result handed out. */
export type CallStatus = 'receiving' | 'queued' | 'executing' | 'completed' | 'yielded';

/** One tool_use as the executor tracks it, from its first stream event to its published result. */
export interface TrackedCall {
  /** Position in the turn; results are published in this order. */
  index: number;
  id: string;
  name: string;
  status: CallStatus;
  block?: ToolUseBlock;
  tool?: AnyTool;
  /** The call prepared once to schedule it; the pipeline adopts it. Absent when the schema rejects the input. */
  prepared?: PreparedCall;
  safe: boolean;
  controller?: AbortController;
  /** Set when the executor aborted this call; replaces an error result with a clear reason. */
  cancelText?: string;
  outcome?: CallOutcome;
  ran: boolean;
}

/**
 * The outcome to keep for a finished call: an error from a call the executor aborted is replaced by
 * the reason it was aborted (which the model can act on); a call that finished anyway keeps its result.
 */
export function explainCancellation(call: TrackedCall, outcome: CallOutcome): CallOutcome {
  if (call.cancelText === undefined || !outcome.result.isError) return outcome;
  return { result: syntheticErrorResult(call.id, call.cancelText), newMessages: [], errorClass: 'aborted' };
}

/** The `tool_result` event for a finished call. */
export function resultEvent(call: TrackedCall, outcome: CallOutcome, at: number): ExecutorEvent {
  const event: ExecutorEvent = {
    type: 'tool_result',
    toolUseId: call.id,
    name: call.name,
    result: outcome.result,
    newMessages: outcome.newMessages,
    ran: call.ran,
    at,
  };
  if (outcome.stopReason !== undefined) event.stopReason = outcome.stopReason;
  if (outcome.errorClass !== undefined) event.errorClass = outcome.errorClass;
  return event;
}
