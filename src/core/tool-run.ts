import type { ToolUseContext } from './context.ts';
import type { Message, ToolResultBlock, ToolUseBlock } from './messages.ts';
import type { PreparedCall } from './prepared-call.ts';

/** What running one tool_use yields: progress at once, then exactly one result. */
export type ToolRunEvent =
  | { type: 'progress'; toolUseId: string; data: unknown }
  | {
      type: 'result';
      result: ToolResultBlock;
      /** Messages that follow the result (hook context, a subagent transcript). */
      newMessages: Message[];
      contextModifier?: (context: ToolUseContext) => ToolUseContext;
      /** Set when a hook asked the loop to stop after this result. */
      stopReason?: string;
      /** Telemetry-safe error class when the call failed. */
      errorClass?: string;
    };

/** What the executor already knows about a call when it hands it to the pipeline. */
export interface RunToolUseOptions {
  /**
   * The call as the executor prepared it to schedule it (from `block.input`); the pipeline adopts it
   * for the same tool and input instead of preparing the call a second time.
   */
  prepared?: PreparedCall;
}

/** The pipeline as the executor sees it: one tool_use in, events out. Never throws for tool failures. */
export type RunToolUse = (
  block: ToolUseBlock,
  context: ToolUseContext,
  options?: RunToolUseOptions,
) => AsyncGenerator<ToolRunEvent, void>;
