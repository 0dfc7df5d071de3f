import type { z } from 'zod';
import type { ToolUseContext } from './context.ts';
import type { ImageBlock, Message, TextBlock, ToolResultBlock } from './messages.ts';
import type { PermissionDecision, PermissionTarget, ToolPermissionResult } from './permission-types.ts';
import type { PreparedShellAnalysis, ToolInvocation } from './prepared-call.ts';

/** What a tool returns from `call()`. */
export interface ToolResult<Output> {
  data: Output;
  /** Messages to add to the conversation after the tool_result (e.g. a subagent transcript). */
  newMessages?: Message[];
  /** The only way a tool changes the context later tools see (cwd, mode). */
  contextModifier?: (context: ToolUseContext) => ToolUseContext;
}

/** Outcome of a tool's semantic input check. */
export type ValidationResult = { ok: true } | { ok: false; message: string; code: number | string };

/** What happens to a running call when the user interrupts. */
export type InterruptBehavior = 'cancel' | 'block';

/** A progress event a tool emits while it runs. */
export interface ToolProgress<Progress> {
  toolUseId: string;
  data: Progress;
}

/** Lets a tool ask the permission system about a nested action (e.g. a subagent's tool). */
export type CanUseTool = (
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
  toolUseId: string,
) => Promise<PermissionDecision>;

/** Options passed to `prompt()`, the text the model sees as the tool's description. */
export interface PromptOptions {
  tools: readonly AnyTool[];
  isNonInteractive: boolean;
}

/** A JSON Schema object as sent to providers. */
export type JsonSchema = Record<string, unknown>;

/**
 * A tool: data made by {@link buildTool}. The runtime decides everything (scheduling, permissions,
 * budgeting) from what the tool declares here; it never branches on a tool's name.
 */
export interface Tool<
  Input extends Record<string, unknown> = Record<string, unknown>,
  Output = unknown,
  Progress = unknown,
> {
  /** The name the model sees: `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string;
  /** Former names; old transcripts and rules that use them still resolve. */
  readonly aliases: readonly string[];
  /** 3–10 words that help ToolSearch find a deferred tool. */
  readonly searchHint: string | undefined;
  /** Validates the model's input at run time and produces the JSON Schema. */
  readonly inputSchema: z.ZodType<Input>;
  /** A JSON Schema given directly (MCP tools); when set it is sent instead of the zod-derived one. */
  readonly inputJSONSchema: JsonSchema | undefined;
  /** OpenAI strict mode: only when the schema allows it. */
  readonly strict: boolean;
  /** The text the model reads as the tool's description. */
  prompt(options: PromptOptions): Promise<string>;
  /** A short summary of one call, for UIs and messages such as "Cancelled: parallel tool call … errored". */
  description(input: Partial<Input>): string;
  /** Runs the tool. Expected failures should be thrown as EfferentError or returned in `data`. */
  call(
    input: Input,
    context: ToolUseContext,
    canUseTool: CanUseTool,
    onProgress: (progress: ToolProgress<Progress>) => void,
    toolUseId: string,
  ): Promise<ToolResult<Output>>;
  /** Semantic checks beyond the schema; `{ok:false}` becomes an error result the model reads. */
  validateInput(input: Input, context: ToolUseContext): Promise<ValidationResult>;
  /** The tool's own objection, if any; the general permission system still decides. */
  checkPermissions(input: Input, context: ToolUseContext): Promise<ToolPermissionResult>;
  /** What rules should match this call against (a command, a path, a URL…). */
  permissionTarget(input: Input, context: ToolUseContext): PermissionTarget;
  isEnabled(): boolean;
  isConcurrencySafe(input: Input): boolean;
  isReadOnly(input: Input): boolean;
  isDestructive(input: Input): boolean;
  interruptBehavior(): InterruptBehavior;
  /** When this call fails while siblings run in parallel, cancel them (shell commands form chains). */
  cancelsSiblingsOnError(input: Input): boolean;
  /** Sent by name only until loaded through ToolSearch. */
  readonly shouldDefer: boolean;
  /** Never deferred, even when deferral is automatic. */
  readonly alwaysLoad: boolean;
  /** Results above this (capped at the global threshold) are saved to disk; Infinity = self-limiting. */
  readonly maxResultSizeChars: number;
  /** Adds derived fields to a copy of the input (e.g. absolute paths) for hooks and permission checks. */
  backfillObservableInput(input: Record<string, unknown>, context: ToolUseContext): void;
  /** What the auto-mode classifier sees of this call; '' = skip the classifier. */
  toAutoClassifierInput(input: Input): unknown;
  /** Turns the output into tool_result content (text or image blocks). */
  mapResultToBlock(output: Output, toolUseId: string): ToolResultBlock;
  /** The name shown to people. */
  userFacingName(input?: Partial<Input>): string;
  /** MCP origin, for `mcp__server__tool` tools. */
  readonly mcpInfo: { serverName: string; toolName: string } | undefined;
  /**
   * Prepares one validated call once (gemini-cli's `build()`): the answers the invocation gives are
   * what every later step reads for this call. `reuse` offers what an earlier preparation of the same
   * call made (for a rewritten input); a tool takes it only when it still applies. Optional: without
   * it the tool's per-input methods answer, each asked once.
   */
  prepare?(
    input: Input,
    context: ToolUseContext,
    reuse: ToolPreparationReuse,
  ): ToolInvocation<Output, Progress>;
  /** Optional one-line renderings for a terminal UI. */
  renderToolUse?(input: Partial<Input>): string;
  renderResult?(output: Output): string;
}

/** What an earlier preparation of the same call offers to {@link Tool.prepare}. */
export interface ToolPreparationReuse {
  shellAnalysis?: PreparedShellAnalysis;
}

/**
 * A tool of any input and output, for collections.
 * `any` is needed here: `Tool` is contravariant in Input, so no narrower type admits every tool.
 */
// biome-ignore lint/suspicious/noExplicitAny: heterogeneous tool collections need it (see above)
export type AnyTool = Tool<any, any, any>;

/** Content a tool_result may carry. */
export type ToolResultContent = string | Array<TextBlock | ImageBlock>;
