import type { PermissionResolver } from '../../core/index.ts';
import { persistAllowRules } from '../settings/persist-rules.ts';
import {
  type ApprovalEnvironment,
  type Approver,
  askPerson,
  autoModeClassifier,
  nobodyToAsk,
  pendingApproval,
} from './approval-steps.ts';
import { evaluateCall } from './evaluate-call.ts';
import { permissionRequestHook, stripEvaluation } from './permission-request-hook.ts';
import type { PermissionResolverOptions } from './resolver-options.ts';
import { SessionGrants } from './session-grants.ts';

export type { PermissionRequestHookResult, PermissionResolverOptions } from './resolver-options.ts';

/**
 * Who settles a call the decision asked about, in order: the first approver with an answer settles
 * it; when none has one, the call stays unapproved ({@link nobodyToAsk}).
 */
export const approvalChain: readonly Approver[] = [permissionRequestHook, autoModeClassifier, askPerson];

/**
 * The permission stage of the pipeline. Decides with {@link evaluatePermission} (decide/); when it
 * asks, hands the call along {@link approvalChain}: the PermissionRequest hook, the auto-mode
 * classifier (auto mode), the parent (bubble mode) or the person (`askUser`). "Allow for the
 * session" adds session rules; "always allow" also saves them.
 */
export function createPermissionResolver(options: PermissionResolverOptions): PermissionResolver {
  const grants = new SessionGrants(
    options.rules ?? options.settings?.rules ?? { allow: [], deny: [], ask: [] },
    {
      ...(options.settings ? { settings: options.settings } : {}),
      ...(options.home !== undefined ? { home: options.home } : {}),
      ...(options.realpath ? { realpath: options.realpath } : {}),
    },
  );
  const environment: ApprovalEnvironment = {
    options,
    grants,
    evaluate: (request, input) => evaluateCall(request, input, grants, options.shell),
    persist: options.persistRules ?? persistAllowRules,
  };
  return async (request) => {
    const first = await environment.evaluate(request, request.input);
    if (first.behavior !== 'ask' || request.dryRun) return stripEvaluation(first);
    const pending = pendingApproval(request, first);
    for (const approver of approvalChain) {
      const decision = await approver(pending, environment);
      if (decision) return decision;
    }
    return nobodyToAsk(pending);
  };
}
