import type { PermissionSuggestion, TraceStep } from '../../core/index.ts';
import type { PermissionRule } from '../rules/rule-types.ts';

/**
 * Why a call must be asked about, strongest first: an explicit ask rule; a safety check (protected
 * path, critical removal); the analyser could not vouch for the command; the call reaches outside
 * the working directories; or simply nothing allowed it.
 */
export type AskKind = 'rule' | 'safety' | 'analysis' | 'workspace' | 'default';

const askStrength: Readonly<Record<AskKind, number>> = {
  rule: 4,
  safety: 3,
  analysis: 2,
  workspace: 1,
  default: 0,
};

/** One stage's conclusion about a call or a subcommand. */
export type Verdict =
  | { behavior: 'deny'; reason: string; rule?: PermissionRule; steps: TraceStep[] }
  | {
      behavior: 'ask';
      kind: AskKind;
      reason: string;
      /** False when only a person may approve (critical removals). */
      classifierApprovable: boolean;
      rule?: PermissionRule;
      steps: TraceStep[];
      suggestions: PermissionSuggestion[];
      /** Set when analysis failed while deny or ask rules exist that it could not check: no mode may allow. */
      rulesUnchecked?: boolean;
    }
  | { behavior: 'allow'; reason: string; rule?: PermissionRule; steps: TraceStep[] };

/** An ask verdict. */
export type AskVerdict = Extract<Verdict, { behavior: 'ask' }>;

/** The stronger of two ask verdicts; non-approvable safety beats approvable safety. */
export function strongerAsk(a: AskVerdict, b: AskVerdict): AskVerdict {
  const difference = askStrength[a.kind] - askStrength[b.kind];
  if (difference !== 0) return difference > 0 ? a : b;
  if (a.classifierApprovable !== b.classifierApprovable) return a.classifierApprovable ? b : a;
  return a;
}

/** A trace step naming the rule that spoke. */
export function ruleStep(rule: PermissionRule, outcome: TraceStep['outcome'], detail: string): TraceStep {
  return { stage: 'rule', outcome, detail, rule: rule.text, source: `${rule.source} (${rule.origin})` };
}

/** Human wording of a rule and where it lives, for messages. */
export function describeRule(rule: PermissionRule): string {
  return `rule ${rule.text} in ${rule.origin}`;
}
