import type { PermissionDecision, TraceStep } from '../../core/index.ts';
import { withPathMemo } from '../paths/canonical-path.ts';
import { CallFacts, type EvaluationRequest } from './call-facts.ts';
import { type CallOpinion, callDecisionTable } from './call-steps.ts';
import { strongestOpinion } from './decision-table.ts';
import { askMessage, denialMessage, unapprovedMessage } from './describe-call.ts';
import type { AskKind } from './verdict.ts';

export type { EvaluationRequest } from './call-facts.ts';

/** A decision plus what the resolver needs to continue an `ask`. */
export interface Evaluation extends PermissionDecision {
  /** For `ask`: why, which decides whether a mode or classifier may settle it. */
  askKind?: AskKind;
  /** For `ask`: false when only a person may approve. */
  classifierApprovable?: boolean;
  /** For `ask`: the reason in words, used for prompts and later messages. */
  reason?: string;
  /** The call in words ("run `git push`"), for later messages. */
  call?: string;
  /** What approving would do (the tool's own preview, e.g. a sed edit's diff), for the prompt. */
  preview?: string;
  /** For a path target whose flow ran: the physical path judged, the one file the tool may open. */
  checkedPath?: string;
}

/**
 * The pure decision: the steps of {@link callDecisionTable}, strongest first (hook → deny rules →
 * ask rules → the tool's own answer → safety checks → mode → allow rules and defaults); the first
 * with an opinion decides. Returns allow, deny, or ask (with its kind, so the resolver knows
 * whether a prompt, a classifier or nobody can settle it). Same inputs, same answer; no I/O beyond
 * `realpath`.
 */
export function evaluatePermission(request: EvaluationRequest): Evaluation {
  return withPathMemo(() => decide(request));
}

function decide(request: EvaluationRequest): Evaluation {
  const facts = new CallFacts(request);
  // The last step always has an opinion; the fallback only keeps the types honest.
  const opinion = strongestOpinion(callDecisionTable, facts) ?? {
    behavior: 'ask',
    kind: 'default',
    reason: `no rule allows ${request.tool.name} here`,
    classifierApprovable: true,
  };
  const evaluation = toEvaluation(opinion, facts);
  if (opinion.behavior === 'ask' && opinion.updatedInput) evaluation.updatedInput = opinion.updatedInput;
  if (facts.checkedPath !== undefined) evaluation.checkedPath = facts.checkedPath;
  return evaluation;
}

/** A hook that neither denied nor was overruled still shows in the trace, first. */
function hookPrefix({ hook, hookName }: CallFacts): TraceStep[] {
  if (!hook || hook.behavior === 'deny') return [];
  return [
    {
      stage: 'hook',
      outcome: hook.behavior,
      detail: `${hookName} said ${hook.behavior}${hook.reason ? `: ${hook.reason}` : ''}.`,
    },
  ];
}

/** The opinion in the words and trace the pipeline shows; in dontAsk mode an ask becomes a deny. */
function toEvaluation(opinion: CallOpinion, facts: CallFacts): Evaluation {
  const { call } = facts;
  const trace = hookPrefix(facts);
  if (opinion.behavior === 'allow') return { behavior: 'allow', trace: [...trace, ...opinion.steps] };
  const { reason } = opinion;
  const steps = opinion.steps ?? [];
  if (opinion.behavior === 'deny') {
    const detail = `Denied: ${reason}.`;
    trace.push(
      ...(steps.length > 0 ? steps : [{ stage: 'resolver' as const, outcome: 'deny' as const, detail }]),
    );
    return { behavior: 'deny', message: denialMessage(call, reason), trace };
  }
  const detail = `Approval needed: ${reason}.`;
  trace.push(
    ...(steps.length > 0 ? steps : [{ stage: 'resolver' as const, outcome: 'ask' as const, detail }]),
  );
  if (facts.request.mode === 'dontAsk') {
    trace.push({
      stage: 'mode',
      outcome: 'deny',
      detail: 'dontAsk mode denies anything that would need approval.',
    });
    return {
      behavior: 'deny',
      message: unapprovedMessage(call, reason, 'dontAsk mode denies anything that would ask'),
      trace,
    };
  }
  const result: Evaluation = {
    behavior: 'ask',
    message: askMessage(call, reason),
    trace,
    askKind: opinion.kind,
    classifierApprovable: opinion.classifierApprovable,
    reason,
    call,
  };
  if (opinion.suggestions && opinion.suggestions.length > 0) result.suggestions = opinion.suggestions;
  return result;
}
