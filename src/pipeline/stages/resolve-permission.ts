import {
  type AnyTool,
  EfferentError,
  errorMessage,
  type HookPermissionDecision,
  type PermissionDecision,
  type PermissionResolver,
  type PreparedCall,
  type ToolUseContext,
} from '../../core/index.ts';
import { type CallFailure, toolUseError } from '../types.ts';
import { validateSchema } from './validate-schema.ts';

/** Arguments of {@link resolvePermission}. */
export interface PermissionStageRequest {
  resolver: PermissionResolver;
  tool: AnyTool;
  /** What the tool will run with if nothing replaces it. */
  input: Record<string, unknown>;
  /** The backfilled copy the resolver matches rules against. */
  observableInput: Record<string, unknown>;
  toolUseId: string;
  context: ToolUseContext;
  hookDecision?: HookPermissionDecision;
  /**
   * The prepared call (its observable input is `observableInput`): the resolver gets its view as the
   * tool, so the target, read-only answer and objection it asks for are the prepared ones.
   */
  prepared?: PreparedCall;
}

/** An allowed call: the input to run and the decision, for the trace. */
export interface PermissionGranted {
  input: Record<string, unknown>;
  decision: PermissionDecision;
}

/** A denied call, with the decision so the denial stage can report it. */
export interface PermissionRefusal extends CallFailure {
  decision: PermissionDecision;
}

function refusal(
  message: string,
  decision: PermissionDecision,
  code: 'permission_denied' | 'permission_needed',
): PermissionRefusal {
  return {
    message,
    outcome: 'permission_denied',
    error: new EfferentError(code, code === 'permission_needed' ? 'approval needed' : 'permission denied'),
    decision,
  };
}

/**
 * Step 8: ask the resolver. A hook's decision goes along as `hookDecision`: whether a hook allow may
 * skip the rules is the resolver's call (deny and ask rules must still win), but a hook deny is final
 * here whatever the resolver says. `ask` coming back means nobody could answer, so the call is
 * refused with a message saying approval is needed. A decision's `updatedInput` replaces the input
 * and may carry internal `_` fields; it is validated with the schema.
 */
export async function resolvePermission(
  request: PermissionStageRequest,
): Promise<{ ok: true; value: PermissionGranted } | { ok: false; failure: PermissionRefusal }> {
  const { tool, hookDecision } = request;
  let decision: PermissionDecision;
  try {
    const { prepared } = request;
    const resolverRequest = {
      tool: prepared ? prepared.view : tool,
      input: request.observableInput,
      toolUseId: request.toolUseId,
      context: request.context,
      ...(prepared ? { prepared } : {}),
    };
    decision = await request.resolver(hookDecision ? { ...resolverRequest, hookDecision } : resolverRequest);
  } catch (error) {
    decision = {
      behavior: 'deny',
      message: `The permission check for ${tool.name} failed (${errorMessage(error)}), so the call was not run.`,
      trace: [{ stage: 'resolver', outcome: 'deny', detail: 'the permission resolver threw' }],
    };
  }
  if (hookDecision?.behavior === 'deny' && decision.behavior !== 'deny') {
    decision = {
      behavior: 'deny',
      message: hookDecision.reason ?? `A PreToolUse hook denied ${tool.name}.`,
      trace: [
        ...decision.trace,
        {
          stage: 'hook',
          outcome: 'deny',
          detail: `hook ${hookDecision.hook ?? ''} denied; a hook deny is final`.trim(),
        },
      ],
    };
  }
  if (decision.behavior === 'deny') {
    const reason = decision.message ?? hookDecision?.reason ?? `Permission to use ${tool.name} was denied.`;
    return { ok: false, failure: refusal(toolUseError(reason), decision, 'permission_denied') };
  }
  if (decision.behavior === 'ask') {
    // An ask that comes back was not answered; the resolver's message is the whole sentence the model reads.
    const text = decision.message ?? approvalNeededMessage(tool.name);
    return { ok: false, failure: refusal(toolUseError(text), decision, 'permission_needed') };
  }
  if (!decision.updatedInput) return { ok: true, value: { input: request.input, decision } };
  const validated = validateSchema(tool, decision.updatedInput, { allowInternalFields: true });
  if (!validated.ok) {
    const text = `The input approved for ${tool.name} does not match its schema, so the call was not run.`;
    return { ok: false, failure: refusal(toolUseError(text), decision, 'permission_denied') };
  }
  return { ok: true, value: { input: validated.value, decision } };
}

/** The sentence for a call that needed approval nobody could give; `reason` says why it asked. */
export function approvalNeededMessage(toolName: string, reason?: string): string {
  const why = reason ? ` (${reason})` : '';
  return `${toolName} needs approval${why}, and nobody was available to approve it, so it was not run. Do not retry the same call; try another approach or ask the user to allow it.`;
}
