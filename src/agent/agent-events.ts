import type { AssistantMessage, Message, TokenUsage, ToolUseContext, UserMessage } from '../core/index.ts';
import type { TurnEvent } from '../executor/index.ts';

/** Why an agent run stopped. */
export type AgentStopReason =
  | 'end_turn'
  | 'max_turns'
  | 'max_tokens'
  | 'refusal'
  | 'aborted'
  | 'error'
  /** A hook asked the loop to stop after a tool result. */
  | 'hook_stop'
  /** A permission prompt was answered "ask later"; the run can resume with the answer. */
  | 'awaiting_approval';

/** Token totals of a run, with a cost when the model's price is known. */
export interface UsageTotals extends TokenUsage {
  /** US dollars; undefined for models without a known price. */
  costUsd: number | undefined;
}

/** The end of a run: the whole conversation, so an interactive session can continue it. */
export interface AgentDone {
  type: 'done';
  reason: AgentStopReason;
  turns: number;
  messages: Message[];
  usage: UsageTotals;
  /** The text of the last assistant message. */
  finalText: string;
  errorMessage?: string;
  hookStopReason?: string;
  /** The context after every tool's context modifiers (cwd, permission mode). */
  context: ToolUseContext;
  durationMs: number;
}

/** What `runAgent` yields: the model's and the tools' events as they happen, per-turn summaries, then `done`. */
export type AgentEvent =
  | { type: 'turn_start'; turn: number; at: number }
  | Exclude<TurnEvent, { type: 'turn_end' }>
  | { type: 'assistant_message'; turn: number; message: AssistantMessage; usage: TokenUsage; at: number }
  | { type: 'tool_results'; turn: number; message: UserMessage; at: number }
  /**
   * A model turn failed in a way worth retrying (overload, rate limit, server error, dropped
   * connection, or a cut at max_tokens in the middle of a tool call) and is sent again after
   * `delayMs`; whatever it streamed is discarded.
   */
  | RetryEvent
  | AgentDone;

/** See {@link AgentEvent}. */
export interface RetryEvent {
  type: 'retry';
  turn: number;
  /** 1 for the first retry. */
  attempt: number;
  maxRetries: number;
  delayMs: number;
  /** Why: the provider's error line, or that the output limit was raised. */
  reason: string;
  /** Set when the turn is retried with a higher output limit. */
  maxTokens?: number;
  at: number;
}
