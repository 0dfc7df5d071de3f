import type { AnyTool, PreparedCall, ToolUseContext } from '../../core/index.ts';
import { createHookInput, type HookRunner } from '../../hooks/index.ts';

/** What PostToolUse hooks say about a finished call. */
export interface PostToolHookValue {
  /** A replacement for the tool's output (`updatedToolOutput`, or `updatedMCPToolOutput` for MCP tools). */
  replacement?: { value: unknown };
  /** `decision:"block"` reasons and exit-2 stderr: shown to the model next to the result. */
  feedback: string[];
  additionalContext: string[];
  /** `continue:false`: the loop stops after this result. */
  stopReason?: string;
}

/** Arguments of {@link runPostToolHooks}. */
export interface PostToolHookRequest {
  hooks: HookRunner | undefined;
  tool: AnyTool;
  input: Record<string, unknown>;
  /** The tool's output data (what `call()` returned in `data`). */
  output: unknown;
  toolUseId: string;
  context: ToolUseContext;
  durationMs: number;
  transcriptPath?: string | undefined;
  /** The prepared call, for hooks' `if` conditions (its observable input is `input`). */
  prepared?: PreparedCall | undefined;
}

/**
 * Step 12: PostToolUse hooks. The tool already ran, so nothing here can undo it; hooks may replace
 * the output the model sees, give it feedback, add context, or stop the loop.
 */
export async function runPostToolHooks(request: PostToolHookRequest): Promise<PostToolHookValue> {
  const { hooks, tool, context } = request;
  const value: PostToolHookValue = { feedback: [], additionalContext: [] };
  if (!hooks?.hasHooks('PostToolUse', tool.name)) return value;
  const hookInput = createHookInput(
    'PostToolUse',
    context,
    {
      tool_name: tool.name,
      tool_input: request.input,
      tool_response: request.output,
      tool_use_id: request.toolUseId,
      duration_ms: request.durationMs,
    },
    request.transcriptPath,
  );
  const outcome = await hooks.run('PostToolUse', hookInput, {
    signal: context.run.abortController.signal,
    matchValue: tool.name,
    toolUseId: request.toolUseId,
    prepared: request.prepared,
  });
  for (const text of outcome.systemMessages) context.ui?.notify?.(text);
  if (outcome.blocked) value.feedback.push(outcome.blocked.reason);
  value.feedback.push(...outcome.blockReasons);
  value.additionalContext.push(...outcome.additionalContext);
  if (outcome.stop) value.stopReason = outcome.stop.reason;
  const replacement = (tool.mcpInfo ? outcome.updatedMCPToolOutput : undefined) ?? outcome.updatedToolOutput;
  if (replacement) value.replacement = replacement;
  return value;
}
