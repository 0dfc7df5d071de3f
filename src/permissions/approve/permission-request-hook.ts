import type { PermissionDecision } from '../../core/index.ts';
import type { Approver, PendingApproval } from './approval-steps.ts';
import type { PermissionRequestHookResult } from './resolver-options.ts';
import type { SessionGrants } from './session-grants.ts';

/** Applies what a PermissionRequest hook granted: session allow rules and working directories. */
function applyUpdates(hook: PermissionRequestHookResult, grants: SessionGrants, cwd: string): void {
  for (const update of hook.updatedPermissions ?? []) {
    if (update.type === 'addRules' && update.behavior === 'allow' && update.rules)
      grants.addRules(update.rules, cwd);
    if (update.type === 'addDirectories' && update.directories) grants.addDirectories(update.directories);
  }
}

function hookDenied(pending: PendingApproval, hook: PermissionRequestHookResult): PermissionDecision {
  if (hook.interrupt)
    pending.request.context.run.abortController.abort(
      new Error('A PermissionRequest hook interrupted the turn.'),
    );
  return {
    behavior: 'deny',
    message: hook.message ?? `${pending.message} A PermissionRequest hook denied it.`,
    trace: [
      ...pending.trace,
      {
        stage: 'hook',
        outcome: 'deny',
        detail: `PermissionRequest hook denied${hook.message ? `: ${hook.message}` : ''}.`,
      },
    ],
  };
}

/**
 * The PermissionRequest hook, asked before anyone else. A hook that answers settles the call, but a
 * rewritten input is decided again: deny rules, ask rules and safety checks still win over the hook.
 */
export const permissionRequestHook: Approver = async (pending, { options, grants, evaluate }) => {
  const { request } = pending;
  if (!options.onPermissionRequest) return undefined;
  const { tool, toolUseId, context } = request;
  const hook = await options.onPermissionRequest(
    {
      tool,
      input: pending.input,
      toolUseId,
      context,
      suggestions: pending.suggestions,
      message: pending.message,
    },
    context.run.abortController.signal,
  );
  if (!hook) return undefined;
  applyUpdates(hook, grants, context.run.cwd);
  if (hook.behavior === 'deny') return hookDenied(pending, hook);
  const updated = hook.updatedInput ?? pending.input;
  if (hook.updatedInput) {
    const again = await evaluate(request, updated);
    if (again.behavior === 'deny' || again.askKind === 'rule' || again.askKind === 'safety')
      return stripEvaluation(again.behavior === 'deny' ? again : { ...again, behavior: 'ask' });
  }
  return {
    behavior: 'allow',
    updatedInput: updated,
    trace: [
      ...pending.trace,
      { stage: 'hook', outcome: 'allow', detail: 'PermissionRequest hook allowed the call.' },
    ],
  };
};

/** Drops the evaluation-only fields so the pipeline sees a plain decision. */
export function stripEvaluation(evaluation: PermissionDecision): PermissionDecision {
  const decision: PermissionDecision = { behavior: evaluation.behavior, trace: evaluation.trace };
  if (evaluation.message !== undefined) decision.message = evaluation.message;
  if (evaluation.updatedInput !== undefined) decision.updatedInput = evaluation.updatedInput;
  if (evaluation.suggestions !== undefined) decision.suggestions = evaluation.suggestions;
  if (evaluation.behavior === 'ask' && evaluation.askKind !== undefined)
    decision.askKind = evaluation.askKind;
  return decision;
}
