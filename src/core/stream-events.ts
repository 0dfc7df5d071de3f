import type { RequestDeferral } from './deferred-tools.ts';
import type { Message, StopReason } from './messages.ts';
import type { AnyTool } from './tool.ts';

/**
 * The provider-neutral stream a model turn produces. Every provider translates its wire format into
 * these events, and the streaming executor and the agent loop consume only these.
 */

/** Token counts of one model turn; cache fields are zero where a provider does not report them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

/** One event of a streamed model turn. A stream ends with exactly one `message_end` or `error`. */
export type StreamEvent =
  /** `usage` when the provider reports it at the start (Anthropic's input and cache tokens). */
  | { type: 'message_start'; model?: string; messageId?: string; usage?: TokenUsage }
  | { type: 'text_delta'; text: string }
  /** Reasoning text; `signature` arrives once, at the end of a thinking block, where the provider signs it. */
  | { type: 'thinking_delta'; thinking: string; signature?: string }
  | { type: 'tool_use_start'; id: string; name: string }
  | { type: 'tool_input_delta'; id: string; partialJson: string }
  /**
   * A tool_use block is complete. `inputError` is set when the streamed JSON did not parse (a cut-off
   * or malformed input); `input` is then `{}` and the call must not run.
   */
  | { type: 'tool_use_end'; id: string; name: string; input: Record<string, unknown>; inputError?: string }
  | { type: 'message_end'; stopReason: StopReason; usage: TokenUsage }
  /**
   * The turn failed; `retryable` for overload, rate limits, server errors and dropped connections,
   * `status` for HTTP failures, `retryAfterMs` when the server said how long to wait, `usage` for
   * what the turn consumed before it failed.
   */
  | {
      type: 'error';
      message: string;
      status?: number;
      retryable?: boolean;
      retryAfterMs?: number;
      usage?: TokenUsage;
    };

/** What the agent loop asks a provider for: one streamed turn. */
export interface ModelRequest {
  systemPrompt: string;
  messages: readonly Message[];
  /** The tool pool in the order it is sent: built-ins first, MCP tools (with `mcpInfo`) after. */
  tools: readonly AnyTool[];
  /**
   * Which of `tools` are deferred and which of those the model loaded. Providers with native deferral
   * (Anthropic's `defer_loading`) send all of them; the others send only what is loaded.
   */
  deferral?: RequestDeferral;
  maxTokens?: number;
  /** Passed to each tool's `prompt()`: true when nobody can answer a permission prompt. */
  isNonInteractive?: boolean;
  signal: AbortSignal;
}

/** A model behind one stream-event model. `stream` never throws: failures arrive as an `error` event. */
export interface ModelProvider {
  /** `anthropic`, `openai`, `replay`, … */
  readonly name: string;
  /** The model id requests use, for pricing and display. */
  readonly model: string;
  stream(request: ModelRequest): AsyncIterable<StreamEvent>;
}

/** Zero usage, to start sums from. */
export function emptyUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
}

/** True for stop reasons after which the turn's content may be incomplete or unsafe to act on. */
export function isBadStopReason(stopReason: StopReason): boolean {
  return (
    stopReason === 'max_tokens' ||
    stopReason === 'error' ||
    stopReason === 'refusal' ||
    stopReason === 'aborted'
  );
}
