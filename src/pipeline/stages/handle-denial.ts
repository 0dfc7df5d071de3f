import type { AnyTool, PermissionDecision, PreparedCall, ToolUseContext } from '../../core/index.ts';
import { createHookInput, type HookRunner } from '../../hooks/index.ts';

/** Arguments of {@link handleDenial}. */
export interface DenialRequest {
  hooks: HookRunner | undefined;
  tool: AnyTool;
  input: Record<string, unknown>;
  toolUseId: string;
  context: ToolUseContext;
  /** The is_error text so far. */
  message: string;
  /** The permission decision that denied the call; absent when a PreToolUse hook blocked it. */
  decision?: PermissionDecision;
  /** Why the call was denied, when there is no decision (a PreToolUse hook's block reason). */
  reason?: string;
  transcriptPath?: string | undefined;
  /** The prepared call, for hooks' `if` conditions (its observable input is `input`). */
  prepared?: PreparedCall | undefined;
}

/** What the model reads after a denial, and whether a hook invited a retry. */
export interface DenialOutcome {
  message: string;
  retry: boolean;
  additionalContext: string[];
}

/**
 * Step 9: a denied call becomes an is_error result, and PermissionDenied hooks hear about it —
 * whoever denied it: a rule, the person, a PreToolUse hook's decision or block. A hook
 * answering `retry: true` adds a line telling the model it may try again.
 */
export async function handleDenial(request: DenialRequest): Promise<DenialOutcome> {
  const { hooks, tool, context } = request;
  const outcome: DenialOutcome = { message: request.message, retry: false, additionalContext: [] };
  if (!hooks?.hasHooks('PermissionDenied', tool.name)) return outcome;
  const reason =
    request.reason ?? request.decision?.message ?? request.decision?.trace.at(-1)?.detail ?? 'denied';
  const hookInput = createHookInput(
    'PermissionDenied',
    context,
    { tool_name: tool.name, tool_input: request.input, tool_use_id: request.toolUseId, reason },
    request.transcriptPath,
  );
  const result = await hooks.run('PermissionDenied', hookInput, {
    signal: context.run.abortController.signal,
    matchValue: tool.name,
    toolUseId: request.toolUseId,
    prepared: request.prepared,
  });
  for (const text of result.systemMessages) context.ui?.notify?.(text);
  outcome.additionalContext.push(...result.additionalContext);
  if (result.retry) {
    outcome.retry = true;
    outcome.message = `${request.message}\nA PermissionDenied hook says you may retry this call.`;
  }
  return outcome;
}
