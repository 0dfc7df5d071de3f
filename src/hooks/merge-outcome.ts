import type { HookResult } from './hook-output.ts';
import type { HookEvent, HookOutcome, HookPermissionBehavior } from './types.ts';

const decisionRank: Record<HookPermissionBehavior, number> = { deny: 3, defer: 2, ask: 1, allow: 0 };

/** Events whose plain stdout becomes model context. */
const plainTextContextEvents: ReadonlySet<HookEvent> = new Set([
  'UserPromptSubmit',
  'UserPromptExpansion',
  'SessionStart',
]);

/** An outcome where no hook said anything. */
export function emptyHookOutcome(): HookOutcome {
  return { ran: 0, additionalContext: [], systemMessages: [], blockReasons: [], retry: false, errors: [] };
}

/**
 * Merges the results of every hook that ran for one event, in configuration order. Permission
 * decisions merge deny > defer > ask > allow; `updatedInput` and replacement outputs take the last one
 * given; a PermissionRequest deny beats an allow; the first blocking error and the first stop win.
 */
export function mergeHookResults(event: HookEvent, results: readonly HookResult[]): HookOutcome {
  const outcome = emptyHookOutcome();
  outcome.ran = results.length;
  for (const result of results) {
    if (result.error !== undefined) outcome.errors.push({ hook: result.hook, message: result.error });
    if (result.blocking !== undefined && !outcome.blocked) {
      outcome.blocked = { reason: result.blocking, hook: result.hook };
    }
    if (result.plainText !== undefined && plainTextContextEvents.has(event)) {
      outcome.additionalContext.push(result.plainText);
    }
    const output = result.output;
    if (!output) continue;
    if (output.continue === false && !outcome.stop) {
      outcome.stop = {
        reason: output.stopReason ?? 'A hook stopped the run.',
        hook: result.hook,
      };
    }
    if (output.systemMessage) outcome.systemMessages.push(output.systemMessage);

    const specific = output.hookSpecificOutput;
    let behavior = specific?.permissionDecision;
    let reason = specific?.permissionDecisionReason ?? output.reason;
    if (event === 'PreToolUse' && behavior === undefined && output.decision !== undefined) {
      // Legacy PreToolUse form: approve|block map to allow|deny.
      behavior = output.decision === 'approve' ? 'allow' : 'deny';
      reason = output.reason;
    } else if (output.decision === 'block') {
      outcome.blockReasons.push(output.reason ?? `Blocked by hook ${result.hook}.`);
    }
    if (event === 'PreToolUse' && behavior !== undefined) {
      const current = outcome.permissionDecision;
      if (!current || decisionRank[behavior] > decisionRank[current.behavior]) {
        outcome.permissionDecision = { behavior, hook: result.hook };
        if (reason !== undefined) outcome.permissionDecision.reason = reason;
      }
    }
    if (specific?.updatedInput) outcome.updatedInput = specific.updatedInput;
    if (specific?.additionalContext) outcome.additionalContext.push(specific.additionalContext);
    if (specific && 'updatedToolOutput' in specific && specific.updatedToolOutput !== undefined) {
      outcome.updatedToolOutput = { value: specific.updatedToolOutput };
    }
    if (specific && 'updatedMCPToolOutput' in specific && specific.updatedMCPToolOutput !== undefined) {
      outcome.updatedMCPToolOutput = { value: specific.updatedMCPToolOutput };
    }
    if (specific?.retry === true) outcome.retry = true;
    const request = specific?.decision;
    if (event === 'PermissionRequest' && request) {
      const current = outcome.permissionRequestDecision;
      if (!current || (current.behavior === 'allow' && request.behavior === 'deny')) {
        outcome.permissionRequestDecision = { ...request };
      } else if (request.interrupt === true && current.behavior === 'deny') {
        current.interrupt = true;
      }
    }
  }
  return outcome;
}
