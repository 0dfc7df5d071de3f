import type { ToolUseContext } from './context.ts';
import type { Message, ToolResultBlock, ToolUseBlock } from './messages.ts';

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

/** The pipeline as the executor sees it: one tool_use in, events out. Never throws for tool failures. */
export type RunToolUse = (block: ToolUseBlock, context: ToolUseContext) => AsyncGenerator<ToolRunEvent, void>;
