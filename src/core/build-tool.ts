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
  name: string;
  inputSchema: z.ZodType<Input>;
  prompt: string | ((options: PromptOptions) => string | Promise<string>);
  call(
    input: Input,
    context: ToolUseContext,
    canUseTool: Parameters<Tool<Input, Output, Progress>['call']>[2],
    onProgress: (progress: ToolProgress<Progress>) => void,
    toolUseId: string,
  ): Promise<ToolResult<Output>>;
  aliases?: readonly string[];
  searchHint?: string;
  inputJSONSchema?: JsonSchema;
  strict?: boolean;
  description?: (input: Partial<Input>) => string;
  validateInput?: (input: Input, context: ToolUseContext) => Promise<ValidationResult>;
  checkPermissions?: (input: Input, context: ToolUseContext) => Promise<ToolPermissionResult>;
  permissionTarget?: (input: Input, context: ToolUseContext) => PermissionTarget;
  isEnabled?: () => boolean;
  isConcurrencySafe?: (input: Input) => boolean;
  isReadOnly?: (input: Input) => boolean;
  isDestructive?: (input: Input) => boolean;
  interruptBehavior?: () => 'cancel' | 'block';
  cancelsSiblingsOnError?: (input: Input) => boolean;
  shouldDefer?: boolean;
  alwaysLoad?: boolean;
  maxResultSizeChars?: number;
  backfillObservableInput?: (input: Record<string, unknown>, context: ToolUseContext) => void;
  toAutoClassifierInput?: (input: Input) => unknown;
  mapResultToBlock?: (output: Output, toolUseId: string) => ToolResultBlock;
  userFacingName?: (input?: Partial<Input>) => string;
  mcpInfo?: { serverName: string; toolName: string };
  renderToolUse?: (input: Partial<Input>) => string;
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
  const tool: Tool<Input, Output, Progress> = {
    name: definition.name,
    aliases: definition.aliases ?? [],
    searchHint: definition.searchHint,
    inputSchema: definition.inputSchema,
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
  if (definition.renderToolUse) tool.renderToolUse = definition.renderToolUse;
  if (definition.renderResult) tool.renderResult = definition.renderResult;
  if (definition.prepare) tool.prepare = definition.prepare;
  return tool;
}
