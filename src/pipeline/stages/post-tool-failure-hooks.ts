import type { AnyTool, PreparedCall, ToolUseContext } from '../../core/index.ts';
import { createHookInput, type HookRunner } from '../../hooks/index.ts';

/** What PostToolUseFailure hooks add to a failed call's result. */
export interface FailureHookValue {
  feedback: string[];
  additionalContext: string[];
  stopReason?: string;
}

/** Arguments of {@link runPostToolFailureHooks}. */
export interface FailureHookRequest {
  hooks: HookRunner | undefined;
  tool: AnyTool;
  input: Record<string, unknown>;
  toolUseId: string;
  context: ToolUseContext;
  /** The error text the model gets. */
  error: string;
  isInterrupt: boolean;
  durationMs: number;
  transcriptPath?: string | undefined;
  /** The prepared call, for hooks' `if` conditions (its observable input is `input`). */
  prepared?: PreparedCall | undefined;
}

/** Step 10, failure branch: `call()` threw or was interrupted; PostToolUseFailure hooks hear about it. */
export async function runPostToolFailureHooks(request: FailureHookRequest): Promise<FailureHookValue> {
  const { hooks, tool, context } = request;
  const value: FailureHookValue = { feedback: [], additionalContext: [] };
  if (!hooks?.hasHooks('PostToolUseFailure', tool.name)) return value;
  const hookInput = createHookInput(
    'PostToolUseFailure',
    context,
    {
      tool_name: tool.name,
      tool_input: request.input,
      tool_use_id: request.toolUseId,
      error: request.error,
      is_interrupt: request.isInterrupt,
      duration_ms: request.durationMs,
    },
    request.transcriptPath,
  );
  // After an interrupt the context's signal is already aborted; the hooks still deserve to run.
  const signal = request.isInterrupt ? AbortSignal.timeout(60_000) : context.run.abortController.signal;
  const outcome = await hooks.run('PostToolUseFailure', hookInput, {
    signal,
    matchValue: tool.name,
    toolUseId: request.toolUseId,
    prepared: request.prepared,
  });
  for (const text of outcome.systemMessages) context.ui?.notify?.(text);
  if (outcome.blocked) value.feedback.push(outcome.blocked.reason);
  value.feedback.push(...outcome.blockReasons);
  value.additionalContext.push(...outcome.additionalContext);
  if (outcome.stop) value.stopReason = outcome.stop.reason;
  return value;
}
