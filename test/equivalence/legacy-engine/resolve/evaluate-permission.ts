// Frozen copy of the permission engine before the rule index, kept only for the equivalence run
// (test/equivalence). Do not edit: it is the reference the current engine is compared with.
import type {
  HookPermissionDecision,
  PermissionDecision,
  PermissionMode,
  PermissionTarget,
  ToolPermissionResult,
  TraceStep,
} from '../../../../src/core/index.ts';
import { evaluateShellCommand, shellRulesPresent } from '../bash-permissions.ts';
import type { EnvVarClass, ShellAnalyzer } from '../../../../src/permissions/decide/shell/shell-contract.ts';
import type { PermissionRule, RuleSet } from '../../../../src/permissions/rules/rule-types.ts';
import { isBroadAllowRule } from './broad-rules.ts';
import { askMessage, denialMessage, describeCall, unapprovedMessage } from './describe-call.ts';
import { contentRules, findToolWideRule, parameterRuleMatches, type RuleSubject } from './rule-match.ts';
import {
  evaluateNamedTarget,
  evaluatePathTarget,
  evaluateUrlTarget,
  type TargetFlowContext,
} from './target-flows.ts';
import { type AskKind, describeRule, ruleStep, type Verdict } from './verdict.ts';
import type { Workspace } from './workspace.ts';

/** Everything a decision depends on; {@link evaluatePermission} reads nothing else. */
export interface EvaluationRequest {
  tool: RuleSubject;
  input: Record<string, unknown>;
  /** What the tool says the call touches. */
  target: PermissionTarget;
  /** The tool's `isReadOnly(input)`; null when unknown. */
  readOnly: boolean | null;
  /** What the tool's own `checkPermissions` said. */
  toolResult?: ToolPermissionResult;
  mode: PermissionMode;
  rules: RuleSet;
  workspace: Workspace;
  hookDecision?: HookPermissionDecision;
  /** Needed for command targets; without it every command asks. */
  shell?: ShellAnalyzer;
}

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
}

/** An unclassifiable variable is treated as dangerous (fail closed). */
function classifyEnvVarSafely(shell: ShellAnalyzer | undefined, name: string): EnvVarClass {
  try {
    return shell?.classifyEnvVar(name) ?? 'dangerous';
  } catch {
    return 'dangerous';
  }
}

const shellFamily = (target: Extract<PermissionTarget, { kind: 'command' }>) =>
  target.shell === 'bash' ? 'Bash' : 'PowerShell';

function targetVerdict(request: EvaluationRequest, rules: RuleSet): Verdict | undefined {
  const { target, workspace } = request;
  const context: TargetFlowContext = {
    toolName: request.tool.name,
    input: request.input,
    rules,
    mode: request.mode,
    workspace,
  };
  switch (target.kind) {
    case 'path':
      return evaluatePathTarget(target, context);
    case 'url':
      return evaluateUrlTarget(target, context);
    case 'agent':
      return evaluateNamedTarget(target.agentType, 'agent type', context);
    case 'skill':
      return evaluateNamedTarget(target.skill, 'skill', context);
    case 'none':
      return undefined;
    case 'command': {
      const family = shellFamily(target);
      const pick = (list: readonly PermissionRule[], families: readonly string[]) =>
        contentRules(list, families).filter(
          (rule) => parameterRuleMatches(rule, request.input) === undefined,
        );
      const subcommandContext = {
        mode: request.mode,
        workspace,
        shellRules: {
          deny: pick(rules.deny, [family]),
          ask: pick(rules.ask, [family]),
          allow: pick(rules.allow, [family]),
        },
        pathRules: {
          readDeny: pick(rules.deny, ['Read']),
          writeDeny: pick(rules.deny, ['Edit', 'Read']),
          writeAsk: pick(rules.ask, ['Edit']),
          writeAllow: pick(rules.allow, ['Edit']),
          readAllow: pick(rules.allow, ['Read', 'Edit']),
        },
        family,
      };
      const verdict: Verdict =
        request.shell && target.shell === 'bash'
          ? evaluateShellCommand(target.command, workspace.cwd, {
              ...subcommandContext,
              analyzer: request.shell,
              classifyEnvVar: (name) => classifyEnvVarSafely(request.shell, name),
            })
          : {
              behavior: 'ask',
              kind: 'analysis',
              reason: 'no shell analyser is available to check the command',
              classifierApprovable: true,
              steps: [],
              suggestions: [],
            };
      // Bypass may settle an analysis ask only when no shell deny/ask rule could have been dodged.
      if (
        verdict.behavior === 'ask' &&
        verdict.kind === 'analysis' &&
        shellRulesPresent({ ...subcommandContext, classifyEnvVar: () => 'neutral' })
      ) {
        return {
          ...verdict,
          reason: `${verdict.reason}; deny rules could not be fully checked`,
          suggestions: [],
          rulesUnchecked: true,
        };
      }
      return verdict;
    }
  }
}

/**
 * The pure decision: hook → deny rules → ask rules → the tool's own answer → safety checks → mode →
 * allow rules and defaults. Returns allow, deny, or ask (with its kind, so the resolver knows whether a
 * prompt, a classifier or nobody can settle it). Same inputs, same answer; no I/O beyond `realpath`.
 */
export function evaluatePermission(request: EvaluationRequest): Evaluation {
  const { tool, input, target, mode } = request;
  const call = describeCall(tool.name, target);
  const trace: TraceStep[] = [];
  const deny = (reason: string, steps: TraceStep[] = []): Evaluation => ({
    behavior: 'deny',
    message: denialMessage(call, reason),
    trace: [
      ...trace,
      ...(steps.length > 0
        ? steps
        : [{ stage: 'resolver' as const, outcome: 'deny' as const, detail: `Denied: ${reason}.` }]),
    ],
  });
  const askResult = (
    kind: AskKind,
    reason: string,
    classifierApprovable: boolean,
    steps: TraceStep[] = [],
    suggestions: Evaluation['suggestions'] = [],
  ): Evaluation => {
    const fullTrace = [
      ...trace,
      ...(steps.length > 0
        ? steps
        : [{ stage: 'resolver' as const, outcome: 'ask' as const, detail: `Approval needed: ${reason}.` }]),
    ];
    if (mode === 'dontAsk') {
      fullTrace.push({
        stage: 'mode',
        outcome: 'deny',
        detail: 'dontAsk mode denies anything that would need approval.',
      });
      return {
        behavior: 'deny',
        message: unapprovedMessage(call, reason, 'dontAsk mode denies anything that would ask'),
        trace: fullTrace,
      };
    }
    const result: Evaluation = {
      behavior: 'ask',
      message: askMessage(call, reason),
      trace: fullTrace,
      askKind: kind,
      classifierApprovable,
      reason,
      call,
    };
    if (suggestions && suggestions.length > 0) result.suggestions = suggestions;
    return result;
  };
  const allow = (steps: TraceStep[]): Evaluation => ({ behavior: 'allow', trace: [...trace, ...steps] });

  const hook = request.hookDecision;
  const hookName = hook?.hook ?? 'a PreToolUse hook';
  if (hook?.behavior === 'deny') {
    return deny(hook.reason ? `${hookName} blocked it (${hook.reason})` : `${hookName} blocked it`, [
      {
        stage: 'hook',
        outcome: 'deny',
        detail: `${hookName} denied the call${hook.reason ? `: ${hook.reason}` : ''}.`,
        ...(hook.hook ? { source: hook.hook } : {}),
      },
    ]);
  }
  if (hook)
    trace.push({
      stage: 'hook',
      outcome: hook.behavior,
      detail: `${hookName} said ${hook.behavior}${hook.reason ? `: ${hook.reason}` : ''}.`,
    });

  const toolWideDeny = findToolWideRule(request.rules.deny, tool);
  if (toolWideDeny)
    return deny(`the tool ${tool.name} is denied by ${describeRule(toolWideDeny)}`, [
      ruleStep(toolWideDeny, 'deny', `${tool.name} is denied as a whole.`),
    ]);
  const parameterDeny = request.rules.deny.find(
    (rule) => rule.value.toolName === tool.name && parameterRuleMatches(rule, input) === true,
  );
  if (parameterDeny)
    return deny(`its input matches ${describeRule(parameterDeny)}`, [
      ruleStep(parameterDeny, 'deny', 'The input matches this parameter rule.'),
    ]);

  if (
    target.kind !== 'none' &&
    (!request.workspace.cwd.startsWith('/') || request.workspace.cwd.includes('\\'))
  ) {
    // Paths and commands are reasoned about as POSIX; anything else is asked about, never guessed.
    return askResult(
      'safety',
      `the working directory ${request.workspace.cwd} is not a POSIX path this engine can reason about`,
      true,
    );
  }
  const rules: RuleSet =
    mode === 'auto'
      ? { ...request.rules, allow: request.rules.allow.filter((rule) => !isBroadAllowRule(rule)) }
      : request.rules;
  const verdict = targetVerdict(request, rules);
  if (verdict?.behavior === 'deny') return deny(verdict.reason, verdict.steps);

  const toolWideAsk = findToolWideRule(request.rules.ask, tool);
  if (toolWideAsk)
    return askResult('rule', `${tool.name} matches ${describeRule(toolWideAsk)}`, true, [
      ruleStep(toolWideAsk, 'ask', `${tool.name} must be asked about.`),
    ]);
  const parameterAsk = request.rules.ask.find(
    (rule) => rule.value.toolName === tool.name && parameterRuleMatches(rule, input) === true,
  );
  if (parameterAsk)
    return askResult('rule', `its input matches ${describeRule(parameterAsk)}`, true, [
      ruleStep(parameterAsk, 'ask', 'The input matches this parameter rule.'),
    ]);
  if (verdict?.behavior === 'ask' && verdict.kind === 'rule')
    return askResult('rule', verdict.reason, true, verdict.steps);

  const toolResult = request.toolResult ?? { behavior: 'passthrough' };
  if (toolResult.behavior === 'deny') {
    return deny(toolResult.message, [{ stage: 'tool', outcome: 'deny', detail: toolResult.message }]);
  }
  if (toolResult.behavior === 'ask') {
    // A tool that asks in every mode may still be pre-approved by an explicit rule for the whole
    // tool (never by a mode or the classifier); deny and ask rules were already checked above.
    const explicitAllow =
      toolResult.ruleApprovable === true && mode !== 'plan'
        ? findToolWideRule(request.rules.allow, tool)
        : undefined;
    if (explicitAllow)
      return allow([
        { stage: 'tool', outcome: 'ask', detail: toolResult.message },
        ruleStep(explicitAllow, 'allow', `${tool.name} is allowed as a whole by an explicit rule.`),
      ]);
    const approvable = toolResult.classifierApprovable !== false;
    const step: TraceStep = {
      stage: 'tool',
      outcome: 'ask',
      detail: toolResult.message,
      classifierApprovable: approvable,
    };
    const result = askResult(
      toolResult.classifierApprovable === undefined ? 'default' : 'safety',
      toolResult.message,
      approvable,
      [step],
      toolResult.suggestions,
    );
    if (toolResult.updatedInput) result.updatedInput = toolResult.updatedInput;
    if (mode !== 'bypassPermissions' || toolResult.classifierApprovable !== undefined) return result;
  }
  if (verdict?.behavior === 'ask' && verdict.kind === 'safety') {
    return askResult('safety', verdict.reason, verdict.classifierApprovable, [
      ...verdict.steps,
      {
        stage: 'safety',
        outcome: 'ask',
        detail: `Safety check: ${verdict.reason}.`,
        classifierApprovable: verdict.classifierApprovable,
      },
    ]);
  }
  const rulesPresent = verdict?.behavior === 'ask' && verdict.rulesUnchecked === true;
  if (hook?.behavior === 'ask') return askResult('rule', `${hookName} asked for approval`, true);
  if (hook?.behavior === 'allow' && !rulesPresent)
    return allow([
      {
        stage: 'hook',
        outcome: 'allow',
        detail: `${hookName} allowed the call and no rule or safety check objects.`,
      },
    ]);
  if (toolResult.behavior === 'allow')
    return allow([
      {
        stage: 'tool',
        outcome: 'allow',
        detail: toolResult.reason ?? `${tool.name} allowed the call itself.`,
      },
    ]);

  if (mode === 'bypassPermissions') {
    if (rulesPresent && verdict?.behavior === 'ask')
      return askResult('analysis', verdict.reason, true, verdict.steps);
    return allow([
      ...(verdict?.steps ?? []),
      {
        stage: 'mode',
        outcome: 'allow',
        detail: 'bypassPermissions mode allows what no deny rule, ask rule or safety check stops.',
      },
    ]);
  }
  if (mode === 'plan' && request.readOnly !== true && target.kind !== 'command') {
    return askResult('default', 'plan mode allows only read-only actions until the plan is approved', true, [
      { stage: 'mode', outcome: 'ask', detail: 'plan mode: the call is not read-only.' },
    ]);
  }

  const toolWideAllow = findToolWideRule(rules.allow, tool);
  if (toolWideAllow && !rulesPresent && !(mode === 'plan' && request.readOnly !== true)) {
    return allow([ruleStep(toolWideAllow, 'allow', `${tool.name} is allowed as a whole.`)]);
  }
  if (verdict?.behavior === 'allow') return allow(verdict.steps);
  if (verdict?.behavior === 'ask')
    return askResult(
      verdict.kind,
      verdict.reason,
      verdict.classifierApprovable,
      verdict.steps,
      verdict.suggestions,
    );
  if (target.kind === 'none' && request.readOnly === true) {
    return allow([
      { stage: 'resolver', outcome: 'allow', detail: `${tool.name} is read-only for this input.` },
    ]);
  }
  return askResult(
    'default',
    `no rule allows ${tool.name} here`,
    true,
    [{ stage: 'resolver', outcome: 'passthrough', detail: 'No rule or default allows the call.' }],
    [{ toolName: tool.name, behavior: 'allow' }],
  );
}
