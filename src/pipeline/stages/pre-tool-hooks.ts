import {
  type AnyTool,
  EfferentError,
  ErrorCodes,
  type HookPermissionDecision,
  type PreparedCall,
  type ToolUseContext,
} from '../../core/index.ts';
import { createHookInput, type HookRunner } from '../../hooks/index.ts';
import { type StageResult, toolUseError } from '../types.ts';
import { validateSchema } from './validate-schema.ts';

/** What PreToolUse hooks leave for the rest of the pipeline. */
export interface PreToolHookValue {
  /** The input to run: the parsed input, or a hook's re-validated `updatedInput`. */
  input: Record<string, unknown>;
  /** True when a hook replaced the input. */
  inputUpdated: boolean;
  hookDecision?: HookPermissionDecision;
  additionalContext: string[];
}

/** Arguments of {@link runPreToolHooks}. */
export interface PreToolHookRequest {
  hooks: HookRunner | undefined;
  tool: AnyTool;
  /** What the tool will run with. */
  input: Record<string, unknown>;
  /** The backfilled copy hooks are shown. */
  observableInput: Record<string, unknown>;
  toolUseId: string;
  context: ToolUseContext;
  transcriptPath?: string | undefined;
  /** The prepared call, for hooks' `if` conditions. */
  prepared?: PreparedCall | undefined;
}

function blockedFailure(message: string, additionalContext: string[], stopReason?: string) {
  const failure = {
    message: toolUseError(message),
    outcome: 'hook_blocked' as const,
    error: new EfferentError(ErrorCodes.hookBlocked, 'blocked by a PreToolUse hook'),
    additionalContext,
  };
  return stopReason === undefined ? failure : { ...failure, stopReason };
}

/**
 * Step 7: PreToolUse hooks. They may block (exit 2), stop the run (`continue:false`), decide
 * (allow/deny/ask, handed to the permission resolver), defer the call to the embedder, rewrite the
 * input (re-validated with the schema; `_` fields stripped) and add context for the model.
 */
export async function runPreToolHooks(request: PreToolHookRequest): Promise<StageResult<PreToolHookValue>> {
  const { hooks, tool, context } = request;
  const value: PreToolHookValue = { input: request.input, inputUpdated: false, additionalContext: [] };
  if (!hooks?.hasHooks('PreToolUse', tool.name)) return { ok: true, value };
  const hookInput = createHookInput(
    'PreToolUse',
    context,
    { tool_name: tool.name, tool_input: request.observableInput, tool_use_id: request.toolUseId },
    request.transcriptPath,
  );
  const outcome = await hooks.run('PreToolUse', hookInput, {
    signal: context.run.abortController.signal,
    matchValue: tool.name,
    toolUseId: request.toolUseId,
    prepared: request.prepared,
  });
  for (const text of outcome.systemMessages) context.ui?.notify?.(text);
  value.additionalContext.push(...outcome.additionalContext);

  if (outcome.blocked) {
    return {
      ok: false,
      failure: {
        ...blockedFailure(`Blocked by a PreToolUse hook: ${outcome.blocked.reason}`, value.additionalContext),
        deniedReason: outcome.blocked.reason,
      },
    };
  }
  if (outcome.stop) {
    return {
      ok: false,
      failure: blockedFailure(
        `A PreToolUse hook stopped execution before ${tool.name} ran: ${outcome.stop.reason}`,
        value.additionalContext,
        outcome.stop.reason,
      ),
    };
  }
  const decision = outcome.permissionDecision;
  if (decision?.behavior === 'defer') {
    const failure = {
      message: `${tool.name} was handed back to the program running this agent by a PreToolUse hook; it will report the result.`,
      outcome: 'deferred' as const,
      error: new EfferentError(ErrorCodes.toolDeferred, 'deferred by a PreToolUse hook'),
      stopReason: 'tool_deferred',
      additionalContext: value.additionalContext,
    };
    return { ok: false, failure };
  }
  if (decision) {
    value.hookDecision = { behavior: decision.behavior, hook: decision.hook };
    if (decision.reason !== undefined) value.hookDecision.reason = decision.reason;
  }
  if (outcome.updatedInput) {
    const revalidated = validateSchema(tool, outcome.updatedInput);
    if (!revalidated.ok) {
      const message = `A PreToolUse hook rewrote the input of ${tool.name} into an invalid one, so the call was not run. ${revalidated.failure.message.replace(/<\/?tool_use_error>/g, '')}`;
      return { ok: false, failure: blockedFailure(message, value.additionalContext) };
    }
    value.input = revalidated.value;
    value.inputUpdated = true;
  }
  return { ok: true, value };
}
