import type { z } from 'zod';
import type { ToolUseContext } from './context.ts';
import type { ToolResultBlock } from './messages.ts';
import type { PermissionTarget, ToolPermissionResult } from './permission-types.ts';
import type { ToolInvocation } from './prepared-call.ts';
import type {
  JsonSchema,
  PromptOptions,
  Tool,
  ToolPreparationReuse,
  ToolResult,
  ToolProgress,
  ValidationResult,
} from './tool.ts';

/** What a tool author writes. Everything not listed as required has a fail-closed default. */
export interface ToolDefinition<Input extends Record<string, unknown>, Output, Progress = never> {
  /** The name the model sees: `^[a-zA-Z0-9_-]{1,64}$`, unique in the session's pool. */
  name: string;
  /**
   * Validates the model's input at run time; its JSON Schema is what the model is shown. May be a
   * getter (`get inputSchema() { return schema(); }`, with {@link lazySchema}): the tool keeps it,
   * so the schema is built when first used rather than when the tool's module loads.
   */
  inputSchema: z.ZodType<Input>;
  /** The description the model reads: when to use the tool, what it returns, its limits. */
  prompt: string | ((options: PromptOptions) => string | Promise<string>);
  /**
   * Runs the tool. Return `{ data }` (and optionally `newMessages` or a `contextModifier`); throw an
   * `EfferentError` for expected failures, whose message the model reads. Anything else thrown is
   * reported to the model as "<name> failed: <message>" and to `onToolError` with its stack.
   * `canUseTool` checks a nested call's permission; `onProgress` streams progress to the UI.
   */
  call(
    input: Input,
    context: ToolUseContext,
    canUseTool: Parameters<Tool<Input, Output, Progress>['call']>[2],
    onProgress: (progress: ToolProgress<Progress>) => void,
    toolUseId: string,
  ): Promise<ToolResult<Output>>;
  /** Former names; old transcripts and rules that use them still resolve. Default none. */
  aliases?: readonly string[];
  /** 3–10 words that help ToolSearch find the tool when it is deferred. */
  searchHint?: string;
  /** A JSON Schema sent instead of the one derived from `inputSchema` (MCP tools). */
  inputJSONSchema?: JsonSchema;
  /** OpenAI strict mode; only honoured when the schema allows it. Default false. */
  strict?: boolean;
  /** A short summary of one call for UIs and messages. Default: the tool's name. */
  description?: (input: Partial<Input>) => string;
  /** Checks beyond the schema; `{ ok: false, message }` becomes an error result. Default: ok. */
  validateInput?: (input: Input, context: ToolUseContext) => Promise<ValidationResult>;
  /**
   * The tool's own objection (`deny`, `ask`) or `passthrough`; rules and modes still decide.
   * Default: passthrough, never an unconditional allow.
   */
  checkPermissions?: (input: Input, context: ToolUseContext) => Promise<ToolPermissionResult>;
  /** What permission rules match against (a command, a path, a URL). Default `{ kind: 'none' }`. */
  permissionTarget?: (input: Input, context: ToolUseContext) => PermissionTarget;
  /** False hides the tool from the pool. Default true. */
  isEnabled?: () => boolean;
  /** True lets this call run in parallel with other safe calls. Default false (runs alone). */
  isConcurrencySafe?: (input: Input) => boolean;
  /** True when the call changes nothing; modes and the read-only checks use it. Default false. */
  isReadOnly?: (input: Input) => boolean;
  /** True when the call deletes or overwrites irreversibly. Default false. */
  isDestructive?: (input: Input) => boolean;
  /** On interrupt: `cancel` aborts the call, `block` lets it finish first. Default `block`. */
  interruptBehavior?: () => 'cancel' | 'block';
  /** True: when this call fails, running sibling calls are cancelled. Default false. */
  cancelsSiblingsOnError?: (input: Input) => boolean;
  /** Send the tool by name only until ToolSearch loads it. Default false. */
  shouldDefer?: boolean;
  /** Never defer the tool, even when deferral is automatic. Default false. */
  alwaysLoad?: boolean;
  /** Results longer than this (characters) are saved to disk with a preview; Infinity = self-limiting. */
  maxResultSizeChars?: number;
  /** Adds derived fields (e.g. absolute paths) to a copy of the input for hooks and permission checks. */
  backfillObservableInput?: (input: Record<string, unknown>, context: ToolUseContext) => void;
  /** What the auto-mode classifier sees of a call; '' (the default) skips the classifier. */
  toAutoClassifierInput?: (input: Input) => unknown;
  /** Turns `data` into tool_result content. Default: strings as they are, anything else as JSON. */
  mapResultToBlock?: (output: Output, toolUseId: string) => ToolResultBlock;
  /** The name shown to people. Default: `name`. */
  userFacingName?: (input?: Partial<Input>) => string;
  /** Set for tools that come from an MCP server. */
  mcpInfo?: { serverName: string; toolName: string };
  /** A one-line rendering of a call for a terminal UI. */
  renderToolUse?: (input: Partial<Input>) => string;
  /** A one-line rendering of a result for a terminal UI. */
  renderResult?: (output: Output) => string;
  /** Prepares one call once; see {@link Tool.prepare}. */
  prepare?: (
    input: Input,
    context: ToolUseContext,
    reuse: ToolPreparationReuse,
  ) => ToolInvocation<Output, Progress>;
}

/** The default result size limit (characters) for tools that do not declare one. */
export const defaultMaxResultSizeChars = 100_000;

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** Serialises any output for a tool_result: strings as they are, everything else as JSON. */
export function defaultResultBlock(output: unknown, toolUseId: string): ToolResultBlock {
  const content = typeof output === 'string' ? output : (JSON.stringify(output, null, 2) ?? '');
  return { type: 'tool_result', toolUseId, content };
}

/**
 * A schema built by its first caller and kept: the built-in tools' schemas are hundreds of zod
 * objects, which importing efferent would otherwise build for every process, used or not.
 */
export function lazySchema<Schema>(build: () => Schema): () => Schema {
  let schema: Schema | undefined;
  return () => {
    schema ??= build();
    return schema;
  };
}

/**
 * The only way to make a tool. Defaults fail closed: not concurrency-safe, not read-only, not
 * destructive, classifier input '' (the classifier skips it, so the general system decides), and
 * `checkPermissions` = passthrough ("no tool-specific objection", never an unconditional allow).
 */
export function buildTool<Input extends Record<string, unknown>, Output, Progress = never>(
  definition: ToolDefinition<Input, Output, Progress>,
): Tool<Input, Output, Progress> {
  if (!toolNamePattern.test(definition.name)) {
    throw new TypeError(`Tool name "${definition.name}" must match ${toolNamePattern} (provider limit).`);
  }
  const { prompt } = definition;
  const schemaGetter = Object.getOwnPropertyDescriptor(definition, 'inputSchema')?.get;
  const tool: Tool<Input, Output, Progress> = {
    name: definition.name,
    aliases: definition.aliases ?? [],
    searchHint: definition.searchHint,
    // A getter stays one (defined below, in this same place among the keys): reading it here would build the schema.
    inputSchema: schemaGetter ? (undefined as unknown as z.ZodType<Input>) : definition.inputSchema,
    inputJSONSchema: definition.inputJSONSchema,
    strict: definition.strict ?? false,
    prompt: async (options) => (typeof prompt === 'string' ? prompt : await prompt(options)),
    description: definition.description ?? (() => definition.name),
    call: definition.call,
    validateInput: definition.validateInput ?? (async () => ({ ok: true })),
    checkPermissions: definition.checkPermissions ?? (async () => ({ behavior: 'passthrough' })),
    permissionTarget: definition.permissionTarget ?? (() => ({ kind: 'none' })),
    isEnabled: definition.isEnabled ?? (() => true),
    isConcurrencySafe: definition.isConcurrencySafe ?? (() => false),
    isReadOnly: definition.isReadOnly ?? (() => false),
    isDestructive: definition.isDestructive ?? (() => false),
    interruptBehavior: definition.interruptBehavior ?? (() => 'block'),
    cancelsSiblingsOnError: definition.cancelsSiblingsOnError ?? (() => false),
    shouldDefer: definition.shouldDefer ?? false,
    alwaysLoad: definition.alwaysLoad ?? false,
    maxResultSizeChars: definition.maxResultSizeChars ?? defaultMaxResultSizeChars,
    backfillObservableInput: definition.backfillObservableInput ?? (() => {}),
    toAutoClassifierInput: definition.toAutoClassifierInput ?? (() => ''),
    mapResultToBlock: definition.mapResultToBlock ?? defaultResultBlock,
    userFacingName: definition.userFacingName ?? (() => definition.name),
    mcpInfo: definition.mcpInfo,
  };
  if (schemaGetter)
    Object.defineProperty(tool, 'inputSchema', {
      get: () => schemaGetter.call(definition),
      enumerable: true,
      configurable: true,
    });
  if (definition.renderToolUse) tool.renderToolUse = definition.renderToolUse;
  if (definition.renderResult) tool.renderResult = definition.renderResult;
  if (definition.prepare) tool.prepare = definition.prepare;
  return tool;
}
