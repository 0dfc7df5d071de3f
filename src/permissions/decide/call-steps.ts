import type { PermissionSuggestion, TraceStep } from '../../core/index.ts';
import type { CallFacts } from './call-facts.ts';
import type { DecisionTable } from './decision-table.ts';
import { type AskKind, describeRule, ruleStep } from './verdict.ts';

/**
 * One step's opinion on a whole call. Without `steps`, the trace gets one line from the reason.
 * `updatedInput` (a tool's own rewrite) travels with the decision whatever it becomes.
 */
export type CallOpinion =
  | { behavior: 'deny'; reason: string; steps?: TraceStep[] }
  | {
      behavior: 'ask';
      kind: AskKind;
      reason: string;
      classifierApprovable: boolean;
      steps?: TraceStep[];
      suggestions?: PermissionSuggestion[];
      updatedInput?: Record<string, unknown>;
    }
  | { behavior: 'allow'; steps: TraceStep[] };

type CallStep = (facts: CallFacts) => CallOpinion | undefined;

const ask = (
  kind: AskKind,
  reason: string,
  classifierApprovable: boolean,
  steps?: TraceStep[],
  suggestions?: PermissionSuggestion[],
): CallOpinion => ({
  behavior: 'ask',
  kind,
  reason,
  classifierApprovable,
  ...(steps ? { steps } : {}),
  ...(suggestions ? { suggestions } : {}),
});

const hookDenies: CallStep = ({ hook, hookName }) => {
  if (hook?.behavior !== 'deny') return undefined;
  const why = hook.reason ? ` (${hook.reason})` : '';
  return {
    behavior: 'deny',
    reason: `${hookName} blocked it${why}`,
    steps: [
      {
        stage: 'hook',
        outcome: 'deny',
        detail: `${hookName} denied the call${hook.reason ? `: ${hook.reason}` : ''}.`,
        ...(hook.hook ? { source: hook.hook } : {}),
      },
    ],
  };
};

const toolWideDenyRule: CallStep = ({ index, request: { tool } }) => {
  const rule = index.deny.toolWide(tool);
  if (!rule) return undefined;
  return {
    behavior: 'deny',
    reason: `the tool ${tool.name} is denied by ${describeRule(rule)}`,
    steps: [ruleStep(rule, 'deny', `${tool.name} is denied as a whole.`)],
  };
};

const parameterDenyRule: CallStep = ({ index, request: { tool, input } }) => {
  const rule = index.deny.parameterRule(tool.name, input);
  if (!rule) return undefined;
  return {
    behavior: 'deny',
    reason: `its input matches ${describeRule(rule)}`,
    steps: [ruleStep(rule, 'deny', 'The input matches this parameter rule.')],
  };
};

/** Paths and commands are reasoned about as POSIX; anything else is asked about, never guessed. */
const nonPosixWorkingDirectory: CallStep = ({ request: { target, workspace } }) => {
  if (target.kind === 'none' || (workspace.cwd.startsWith('/') && !workspace.cwd.includes('\\')))
    return undefined;
  return ask(
    'safety',
    `the working directory ${workspace.cwd} is not a POSIX path this engine can reason about`,
    true,
  );
};

const targetDenies: CallStep = (facts) => {
  const verdict = facts.verdict();
  return verdict?.behavior === 'deny'
    ? { behavior: 'deny', reason: verdict.reason, steps: verdict.steps }
    : undefined;
};

const toolWideAskRule: CallStep = ({ index, request: { tool } }) => {
  const rule = index.ask.toolWide(tool);
  if (!rule) return undefined;
  return ask('rule', `${tool.name} matches ${describeRule(rule)}`, true, [
    ruleStep(rule, 'ask', `${tool.name} must be asked about.`),
  ]);
};

const parameterAskRule: CallStep = ({ index, request: { tool, input } }) => {
  const rule = index.ask.parameterRule(tool.name, input);
  if (!rule) return undefined;
  return ask('rule', `its input matches ${describeRule(rule)}`, true, [
    ruleStep(rule, 'ask', 'The input matches this parameter rule.'),
  ]);
};

const targetAskRule: CallStep = (facts) => {
  const verdict = facts.verdict();
  return verdict?.behavior === 'ask' && verdict.kind === 'rule'
    ? ask('rule', verdict.reason, true, verdict.steps)
    : undefined;
};

const toolDenies: CallStep = ({ toolResult }) =>
  toolResult.behavior === 'deny'
    ? {
        behavior: 'deny',
        reason: toolResult.message,
        steps: [{ stage: 'tool', outcome: 'deny', detail: toolResult.message }],
      }
    : undefined;

/**
 * The tool's own ask. A tool that asks in every mode may still be pre-approved by an explicit rule
 * for the whole tool (never by a mode or the classifier); an ask the tool leaves to the engine's
 * defaults (no `classifierApprovable`) is settled by bypassPermissions mode.
 */
const toolAsks: CallStep = ({ toolResult, index, request: { tool, mode } }) => {
  if (toolResult.behavior !== 'ask') return undefined;
  const explicitAllow =
    toolResult.ruleApprovable === true && mode !== 'plan' ? index.allow.toolWide(tool) : undefined;
  if (explicitAllow)
    return {
      behavior: 'allow',
      steps: [
        { stage: 'tool', outcome: 'ask', detail: toolResult.message },
        ruleStep(explicitAllow, 'allow', `${tool.name} is allowed as a whole by an explicit rule.`),
      ],
    };
  if (mode === 'bypassPermissions' && toolResult.classifierApprovable === undefined) return undefined;
  const approvable = toolResult.classifierApprovable !== false;
  return {
    behavior: 'ask',
    kind: toolResult.classifierApprovable === undefined ? 'default' : 'safety',
    reason: toolResult.message,
    classifierApprovable: approvable,
    steps: [{ stage: 'tool', outcome: 'ask', detail: toolResult.message, classifierApprovable: approvable }],
    ...(toolResult.suggestions ? { suggestions: toolResult.suggestions } : {}),
    ...(toolResult.updatedInput ? { updatedInput: toolResult.updatedInput } : {}),
  };
};

const targetSafetyCheck: CallStep = (facts) => {
  const verdict = facts.verdict();
  if (verdict?.behavior !== 'ask' || verdict.kind !== 'safety') return undefined;
  return ask('safety', verdict.reason, verdict.classifierApprovable, [
    ...verdict.steps,
    {
      stage: 'safety',
      outcome: 'ask',
      detail: `Safety check: ${verdict.reason}.`,
      classifierApprovable: verdict.classifierApprovable,
    },
  ]);
};

const hookAsks: CallStep = ({ hook, hookName }) =>
  hook?.behavior === 'ask' ? ask('rule', `${hookName} asked for approval`, true) : undefined;

const hookAllows: CallStep = (facts) =>
  facts.hook?.behavior === 'allow' && !facts.rulesUnchecked()
    ? {
        behavior: 'allow',
        steps: [
          {
            stage: 'hook',
            outcome: 'allow',
            detail: `${facts.hookName} allowed the call and no rule or safety check objects.`,
          },
        ],
      }
    : undefined;

const toolAllows: CallStep = ({ toolResult, request: { tool } }) =>
  toolResult.behavior === 'allow'
    ? {
        behavior: 'allow',
        steps: [
          {
            stage: 'tool',
            outcome: 'allow',
            detail: toolResult.reason ?? `${tool.name} allowed the call itself.`,
          },
        ],
      }
    : undefined;

const bypassMode: CallStep = (facts) => {
  if (facts.request.mode !== 'bypassPermissions') return undefined;
  const verdict = facts.verdict();
  if (facts.rulesUnchecked() && verdict?.behavior === 'ask')
    return ask('analysis', verdict.reason, true, verdict.steps);
  return {
    behavior: 'allow',
    steps: [
      ...(verdict?.steps ?? []),
      {
        stage: 'mode',
        outcome: 'allow',
        detail: 'bypassPermissions mode allows what no deny rule, ask rule or safety check stops.',
      },
    ],
  };
};

const planMode: CallStep = ({ request: { mode, readOnly, target } }) =>
  mode === 'plan' && readOnly !== true && target.kind !== 'command'
    ? ask('default', 'plan mode allows only read-only actions until the plan is approved', true, [
        { stage: 'mode', outcome: 'ask', detail: 'plan mode: the call is not read-only.' },
      ])
    : undefined;

const toolWideAllowRule: CallStep = (facts) => {
  const { tool, mode, readOnly } = facts.request;
  const rule = facts.rules().allow.toolWide(tool);
  if (!rule || facts.rulesUnchecked() || (mode === 'plan' && readOnly !== true)) return undefined;
  return { behavior: 'allow', steps: [ruleStep(rule, 'allow', `${tool.name} is allowed as a whole.`)] };
};

const targetAllows: CallStep = (facts) => {
  const verdict = facts.verdict();
  return verdict?.behavior === 'allow' ? { behavior: 'allow', steps: verdict.steps } : undefined;
};

const targetAsks: CallStep = (facts) => {
  const verdict = facts.verdict();
  if (verdict?.behavior !== 'ask') return undefined;
  const { kind, reason, classifierApprovable, steps, suggestions } = verdict;
  return ask(kind, reason, classifierApprovable, steps, suggestions);
};

const readOnlyWithoutTarget: CallStep = ({ request: { target, readOnly, tool } }) =>
  target.kind === 'none' && readOnly === true
    ? {
        behavior: 'allow',
        steps: [{ stage: 'resolver', outcome: 'allow', detail: `${tool.name} is read-only for this input.` }],
      }
    : undefined;

const nothingAllows: CallStep = ({ request: { tool } }) =>
  ask(
    'default',
    `no rule allows ${tool.name} here`,
    true,
    [{ stage: 'resolver', outcome: 'passthrough', detail: 'No rule or default allows the call.' }],
    [{ toolName: tool.name, behavior: 'allow' }],
  );

/**
 * The order a call is decided in, strongest first: the first step with an opinion decides. Deny
 * (hooks, rules, the tool) beats every ask; ask rules beat the tool's and the safety checks' asks;
 * those beat anything a hook, the tool or a mode allows; modes beat allow rules; allow rules beat
 * the target's remaining asks; and a call nobody allowed asks.
 */
export const callDecisionTable: DecisionTable<CallFacts, CallOpinion> = [
  { name: 'a PreToolUse hook denies', check: hookDenies },
  { name: 'a deny rule for the whole tool', check: toolWideDenyRule },
  { name: 'a deny rule on a parameter', check: parameterDenyRule },
  { name: 'the working directory is not POSIX', check: nonPosixWorkingDirectory },
  { name: 'the target is denied (path, URL, command, agent, skill)', check: targetDenies },
  { name: 'an ask rule for the whole tool', check: toolWideAskRule },
  { name: 'an ask rule on a parameter', check: parameterAskRule },
  { name: 'an ask rule on the target', check: targetAskRule },
  { name: 'the tool denies', check: toolDenies },
  { name: 'the tool asks (or an explicit tool rule pre-approves it)', check: toolAsks },
  { name: 'a safety check on the target asks', check: targetSafetyCheck },
  { name: 'a PreToolUse hook asks', check: hookAsks },
  { name: 'a PreToolUse hook allows', check: hookAllows },
  { name: 'the tool allows', check: toolAllows },
  { name: 'bypassPermissions mode', check: bypassMode },
  { name: 'plan mode: not read-only', check: planMode },
  { name: 'an allow rule for the whole tool', check: toolWideAllowRule },
  { name: 'the target is allowed (rule, mode, working directory)', check: targetAllows },
  { name: 'the target asks (workspace, analysis, default)', check: targetAsks },
  { name: 'read-only without a target', check: readOnlyWithoutTarget },
  { name: 'nothing allows it', check: nothingAllows },
];
