import type {
  AssistantMessage,
  ContentBlock,
  Message,
  ModelProvider,
  PermissionMode,
  PermissionPrompt,
  PermissionPromptAnswer,
  StreamEvent,
  TokenUsage,
  ToolResultBlock,
} from '../core/index.ts';
import type { ExecutorEvent } from '../executor/index.ts';
import type { AgentDone, AgentEvent, RetryEvent } from './agent-events.ts';

/** The model's stream events, each with the turn it belongs to; a failed stream is `model_error`. */
export type RunStreamEvent =
  | (Exclude<StreamEvent, { type: 'error' }> & { turn: number; at: number })
  | {
      type: 'model_error';
      turn: number;
      at: number;
      message: string;
      /** The HTTP status, for HTTP failures. */
      status?: number;
      /** Overload and rate limits. */
      retryable?: boolean;
    };

/** The executor's tool events, each with the turn it belongs to. */
export type RunToolEvent = ExecutorEvent & { turn: number };

/**
 * One event of `session.run`: a single flat union, discriminated by `type`. In order: `turn_start`,
 * the model's stream (`text_delta`, `tool_use_start`, …) interleaved with the tools' events
 * (`tool_started`, `tool_progress`, `tool_result`), `assistant_message`, `tool_results`, and at
 * the very end exactly one `done`.
 */
export type RunEvent =
  | { type: 'turn_start'; turn: number; at: number }
  | RunStreamEvent
  | RunToolEvent
  | { type: 'assistant_message'; turn: number; message: AssistantMessage; usage: TokenUsage; at: number }
  | { type: 'tool_results'; turn: number; message: Message; at: number }
  /** A prompt was answered "ask later"; the run stops after this turn with `awaiting_approval`. */
  | { type: 'approval_deferred'; turn: number; prompt: PermissionPrompt; at: number }
  /** A failed model turn is sent again after `delayMs` (overload, rate limit, dropped connection). */
  | RetryEvent
  | ({ type: 'done' } & RunResult);

/**
 * A run stopped at a permission prompt answered "ask later". Plain JSON: store it anywhere, and
 * resume in this or another process with `session.run({ provider, resume: pending, answers })`.
 */
export interface PendingApproval {
  /** The format's version; `resume` refuses any other. */
  version: 1;
  /** The conversation up to and including the assistant message whose calls wait. */
  messages: Message[];
  /** Results of that message's calls that already ran (or were refused), in call order. */
  results: ToolResultBlock[];
  /** Messages tools added after their results (hook context), kept for the resumed turn. */
  newMessages: Message[];
  /** The prompts waiting for an answer, one per deferred call (`toolUseId` is the key). */
  prompts: PermissionPrompt[];
  /** The working directory and mode after the turn (a `cd` or a mode change survives the wait). */
  cwd: string;
  permissionMode: PermissionMode;
}

/** How a `session.run` ended: `runAgent`'s summary, plus the pending state when approval waits. */
export interface RunResult extends Omit<AgentDone, 'type'> {
  /** Set when `reason` is `awaiting_approval`. */
  pending?: PendingApproval;
}

/** What `session.run` needs: a provider and a prompt; the session supplies tools, pipeline, budget. */
export interface SessionRunOptions {
  provider: ModelProvider;
  /** The user's new message. Omit it only when resuming. */
  prompt?: string | ContentBlock[];
  /** Default: a one-line prompt telling the model to use the tools to do the user's task. */
  systemPrompt?: string;
  /** Earlier conversation (e.g. a previous result's `messages`), for a session that continues. */
  history?: readonly Message[];
  /** Model turns before the run stops; default 50. */
  maxTurns?: number;
  maxTokens?: number;
  /** Aborting stops the model stream and the tools (as `run.abort()` does). */
  signal?: AbortSignal;
  /** Run tools only after each model message ended (no streaming execution). */
  executeAfterStreamEnd?: boolean;
  /** A stopped run's pending state, to continue it with `answers`. */
  resume?: PendingApproval;
  /** One answer per pending prompt, keyed by `toolUseId`. */
  answers?: Readonly<Record<string, PermissionPromptAnswer>>;
}

/** A running `session.run`: iterate it for events (once), or await `result`, or both. */
export interface AgentRun extends AsyncIterable<RunEvent> {
  /** Resolves when the run ended (never rejects for model or tool failures: see `reason`). */
  readonly result: Promise<RunResult>;
  /** Stops the run: the model stream ends, tools follow their interrupt behaviour. */
  abort(reason?: unknown): void;
}

/** Flattens one `runAgent` event into a `session.run` event. */
export function flattenEvent(event: AgentEvent, turn: number): RunEvent {
  switch (event.type) {
    case 'stream': {
      const inner = event.event;
      if (inner.type === 'error') {
        const flat: RunEvent = { type: 'model_error', turn, at: event.at, message: inner.message };
        if (inner.status !== undefined) flat.status = inner.status;
        if (inner.retryable !== undefined) flat.retryable = inner.retryable;
        return flat;
      }
      return { ...inner, turn, at: event.at };
    }
    case 'tool_started':
    case 'tool_progress':
    case 'tool_result':
      return { ...event, turn };
    case 'done': {
      const { type: _type, ...rest } = event;
      return { type: 'done', ...rest };
    }
    default:
      return event;
  }
}
