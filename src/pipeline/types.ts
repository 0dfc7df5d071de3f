import type { AnyTool, PermissionResolver, ToolUseContext } from '../core/index.ts';
import type { ResultBudget } from '../budget/index.ts';
import type { HookRunner } from '../hooks/index.ts';
import type { Telemetry, ToolCallOutcome } from '../telemetry/index.ts';

/** Called at step 5 so an auto-mode classifier can start before hooks and rules finish. */
export type ClassifierStart = (
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
) => void;

/** Which deferred tools have had their schema loaded (through ToolSearch). */
export interface DeferredToolState {
  isLoaded(name: string): boolean;
  /**
   * Whether the session deferred this tool (its schema is sent only once loaded). When given, a call
   * to a deferred tool that was never loaded is refused with a hint to load it; without it, tools
   * that declare `shouldDefer` count as deferred and only a failed schema check gets the hint.
   */
  isDeferred?(name: string): boolean;
}

/** What {@link createToolRunner} needs. Only `tools` and `resolvePermission` are required. */
export interface ToolRunnerDeps {
  /** The session's tool pool: what the model may call. */
  tools: readonly AnyTool[];
  /** Every tool this build knows (e.g. `getAllBaseTools()`), for resolving renamed tools by alias. */
  allTools?: readonly AnyTool[];
  resolvePermission: PermissionResolver;
  hooks?: HookRunner;
  budget?: ResultBudget;
  classifierStart?: ClassifierStart;
  deferred?: DeferredToolState;
  /** Defaults to OpenTelemetry through `@opentelemetry/api` (a no-op unless an SDK is installed). */
  telemetry?: Telemetry;
  /** The transcript path hooks are told about; defaults to `<sessionDir>/transcript.jsonl`. */
  transcriptPath?: (context: ToolUseContext) => string;
  /**
   * Called with what a tool's `call()` threw (or an internal failure), stack intact; the model still
   * gets its error result. For developers: the model never sees the stack.
   */
  onToolError?: (error: unknown, call: ToolErrorCall) => void;
}

/** Which call failed, for {@link ToolRunnerDeps.onToolError}. */
export interface ToolErrorCall {
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  /** `tool_error`: the tool threw; `internal_error`: efferent failed around it. */
  kind: 'tool_error' | 'internal_error';
}

/** A stage stopped the call: what the model reads, and how telemetry files it. */
export interface CallFailure {
  /** The text of the is_error tool_result. */
  message: string;
  outcome: ToolCallOutcome;
  /** What gets classified for telemetry (never its message). */
  error: unknown;
  /** Set when the loop should stop after this result. */
  stopReason?: string;
  /** Hook context that still goes next to the error result. */
  additionalContext?: string[];
  /** Hook feedback that goes next to the error result. */
  feedback?: string[];
  /** Set when a PreToolUse hook blocked the call: its reason, for the PermissionDenied hooks. */
  deniedReason?: string;
}

/** Either a stage's value or the failure that ends the call. */
export type StageResult<T> = { ok: true; value: T } | { ok: false; failure: CallFailure };

/** Wraps a model-facing error text the way Claude Code does, so models trained on it recognise it. */
export function toolUseError(text: string): string {
  return `<tool_use_error>${text}</tool_use_error>`;
}
