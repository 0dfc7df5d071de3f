import {
  classifyToolError,
  errorMessage,
  type PreparedCall,
  type RunToolUse,
  type ToolUseBlock,
  type ToolUseContext,
} from '../core/index.ts';
import type { CallOutcome } from './executor-events.ts';
import { syntheticErrorResult } from './synthetic-results.ts';

/**
 * Runs one tool_use through the pipeline and collects its single result. Progress is passed on at
 * once. A pipeline that throws or yields no result still produces an error result, so the caller
 * always gets exactly one outcome.
 */
export async function runOneCall(
  runTool: RunToolUse,
  block: ToolUseBlock,
  context: ToolUseContext,
  onProgress: (data: unknown) => void,
  prepared?: PreparedCall,
): Promise<CallOutcome> {
  let outcome: CallOutcome | undefined;
  const events = prepared ? runTool(block, context, { prepared }) : runTool(block, context);
  try {
    for await (const event of events) {
      if (event.type === 'progress') {
        onProgress(event.data);
        continue;
      }
      if (outcome) continue; // the contract is one result; later ones are ignored
      outcome = {
        result: { ...event.result, toolUseId: block.id },
        newMessages: event.newMessages,
      };
      if (event.contextModifier) outcome.contextModifier = event.contextModifier;
      if (event.stopReason !== undefined) outcome.stopReason = event.stopReason;
      if (event.errorClass !== undefined) outcome.errorClass = event.errorClass;
    }
  } catch (error) {
    if (!outcome) {
      return {
        result: syntheticErrorResult(block.id, `${block.name} failed: ${errorMessage(error)}`),
        newMessages: [],
        errorClass: classifyToolError(error),
      };
    }
  }
  return (
    outcome ?? {
      result: syntheticErrorResult(block.id, `${block.name} produced no result (internal error).`),
      newMessages: [],
      errorClass: 'internal',
    }
  );
}
