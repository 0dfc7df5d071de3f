import type { Message, ToolResultBlock, ToolUseContext } from '../core/index.ts';

/** What the executor reports while it runs a turn's tool calls. */
export type ExecutorEvent =
  | { type: 'tool_started'; toolUseId: string; name: string; at: number }
  | { type: 'tool_progress'; toolUseId: string; data: unknown; at: number }
  | {
      type: 'tool_result';
      toolUseId: string;
      name: string;
      result: ToolResultBlock;
      /** Messages that follow the result in the conversation. */
      newMessages: Message[];
      /** True when the tool actually ran; false for results the executor wrote itself. */
      ran: boolean;
      /** Set when a hook asked the loop to stop after this result. */
      stopReason?: string;
      errorClass?: string;
      at: number;
    };

/** One finished call, as the executor hands it back. */
export interface CallOutcome {
  result: ToolResultBlock;
  newMessages: Message[];
  contextModifier?: (context: ToolUseContext) => ToolUseContext;
  stopReason?: string;
  errorClass?: string;
}
