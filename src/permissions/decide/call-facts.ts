import type {
  HookPermissionDecision,
  PermissionMode,
  PermissionTarget,
  ToolPermissionResult,
} from '../../core/index.ts';
import { compileRuleSet, type RuleIndex } from '../rules/rule-index.ts';
import type { RuleSet } from '../rules/rule-types.ts';
import { isBroadAllowRule } from './broad-rules.ts';
import { describeCall } from './describe-call.ts';
import type { RuleSubject } from './rule-match.ts';
import {
  evaluateIndexedShellCommand,
  type IndexedBashFlowContext,
  indexBashFlowContext,
  shellRulesPresent,
} from './shell/bash-permissions.ts';
import type { EnvVarClass, ShellAnalyzer } from './shell/shell-contract.ts';
import {
  evaluateNamedTarget,
  evaluatePathTarget,
  evaluateUrlTarget,
  type TargetFlowContext,
} from './target-flows.ts';
import { powerShellRuleVerdict } from './shell/powershell-rules.ts';
import type { Verdict } from './verdict.ts';
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

/**
 * What the steps of one decision read: the request and what is derived from it. The compiled rules
 * and the target's verdict are computed on first use, so a call a deny rule stops never analyses
 * its target.
 */
export class CallFacts {
  readonly call: string;
  readonly index: RuleIndex;
  readonly hook: HookPermissionDecision | undefined;
  readonly hookName: string;
  readonly toolResult: ToolPermissionResult;
  // Computed on first use (`unset` until then: undefined is a valid verdict).
  private allowIndex: RuleIndex | undefined;
  private targetOpinion: Verdict | undefined | typeof unset = unset;

  constructor(readonly request: EvaluationRequest) {
    this.call = describeCall(request.tool.name, request.target);
    this.index = compileRuleSet(request.rules);
    this.hook = request.hookDecision;
    this.hookName = this.hook?.hook ?? 'a PreToolUse hook';
    this.toolResult = request.toolResult ?? { behavior: 'passthrough' };
  }

  /** The rules allow steps use: in auto mode without the broad allow rules. */
  rules(): RuleIndex {
    this.allowIndex ??=
      this.request.mode === 'auto' ? compileRuleSet(withoutBroadAllowRules(this.request.rules)) : this.index;
    return this.allowIndex;
  }

  /** What the target's own flow (path, URL, command, agent, skill) concludes; undefined for none. */
  verdict(): Verdict | undefined {
    if (this.targetOpinion === unset) {
      const judged: { checkedPath?: string } = {};
      this.targetOpinion = targetVerdict(this.request, this.rules(), judged);
      this.checkedPath = judged.checkedPath;
    }
    return this.targetOpinion;
  }

  /** The physical path the target's flow judged, once {@link verdict} has run for a path target. */
  checkedPath: string | undefined;

  /** Analysis failed while shell deny or ask rules exist that it could not check: no mode may allow. */
  rulesUnchecked(): boolean {
    const verdict = this.verdict();
    return verdict?.behavior === 'ask' && verdict.rulesUnchecked === true;
  }
}

const unset: unique symbol = Symbol('unset');

// Auto mode drops broad allow rules; the reduced set is built (and compiled) once per rule set.
const reducedForAuto = new WeakMap<RuleSet, RuleSet>();

function withoutBroadAllowRules(rules: RuleSet): RuleSet {
  let reduced = reducedForAuto.get(rules);
  if (!reduced) {
    reduced = { ...rules, allow: rules.allow.filter((rule) => !isBroadAllowRule(rule)) };
    reducedForAuto.set(rules, reduced);
  }
  return reduced;
}

/** An unclassifiable variable is treated as dangerous (fail closed). */
function classifyEnvVarSafely(shell: ShellAnalyzer | undefined, name: string): EnvVarClass {
  try {
    return shell?.classifyEnvVar(name) ?? 'dangerous';
  } catch {
    return 'dangerous';
  }
}

function targetVerdict(
  request: EvaluationRequest,
  rules: RuleIndex,
  judged: { checkedPath?: string },
): Verdict | undefined {
  const { target } = request;
  const context: TargetFlowContext = {
    toolName: request.tool.name,
    input: request.input,
    rules,
    mode: request.mode,
    workspace: request.workspace,
  };
  switch (target.kind) {
    case 'path': {
      const verdict = evaluatePathTarget(target, context);
      if (context.checkedPath !== undefined) judged.checkedPath = context.checkedPath;
      return verdict;
    }
    case 'url':
      return evaluateUrlTarget(target, context);
    case 'agent':
      return evaluateNamedTarget(target.agentType, 'agent type', context);
    case 'skill':
      return evaluateNamedTarget(target.skill, 'skill', context);
    case 'none':
      return undefined;
    case 'command':
      return commandVerdict(request, target, rules);
  }
}

/** The rules a shell command's subcommands are checked against, compiled from the rule index. */
function subcommandRules(request: EvaluationRequest, family: string, rules: RuleIndex) {
  const { input, workspace } = request;
  return {
    mode: request.mode,
    workspace,
    ...subcommandRuleLists(input, family, workspace, rules),
    family,
  };
}

type SubcommandRuleLists = ReturnType<typeof lookUpSubcommandRuleLists>;

/**
 * Per rule index, the lists by family, cwd and home: the same for every input that names no
 * parameter of a parameter rule (`Bash(git:*)` reads as parameter `git`), which is every input of
 * a shell tool in practice. Such inputs look the lists up once; the others every time.
 */
const ruleListsByIndex = new WeakMap<RuleIndex, Map<string, SubcommandRuleLists>>();

function subcommandRuleLists(
  input: Record<string, unknown>,
  family: string,
  workspace: Workspace,
  rules: RuleIndex,
): SubcommandRuleLists {
  const dependsOnInput =
    rules.allow.inputNamesParameters(input) ||
    rules.deny.inputNamesParameters(input) ||
    rules.ask.inputNamesParameters(input);
  if (dependsOnInput) return lookUpSubcommandRuleLists(input, family, workspace, rules);
  let byKey = ruleListsByIndex.get(rules);
  if (!byKey) {
    byKey = new Map();
    ruleListsByIndex.set(rules, byKey);
  }
  const key = `${family}\0${workspace.cwd}\0${workspace.home}`;
  let lists = byKey.get(key);
  if (!lists) {
    // A session works in a handful of directories; a pathological caller must not grow this forever.
    if (byKey.size >= 64) byKey.clear();
    lists = lookUpSubcommandRuleLists(input, family, workspace, rules);
    byKey.set(key, lists);
  }
  return lists;
}

function lookUpSubcommandRuleLists(
  input: Record<string, unknown>,
  family: string,
  workspace: Workspace,
  rules: RuleIndex,
) {
  const anchors = { cwd: workspace.cwd, home: workspace.home };
  return {
    shellRules: {
      deny: rules.deny.content([family], input).shell(),
      ask: rules.ask.content([family], input).shell(),
      allow: rules.allow.content([family], input).shell(),
    },
    pathRules: {
      readDeny: rules.deny.content(['Read'], input).paths('deny', anchors),
      readAsk: rules.ask.content(['Read'], input).paths('ask', anchors),
      writeDeny: rules.deny.content(['Edit', 'Read'], input).paths('deny', anchors),
      writeAsk: rules.ask.content(['Edit'], input).paths('ask', anchors),
      writeAllow: rules.allow.content(['Edit'], input).paths('allow', anchors),
      readAllow: rules.allow.content(['Read', 'Edit'], input).paths('allow', anchors),
    },
  };
}

/**
 * The compiled Bash flow context of the last decision per rule lists: the next decision with the
 * same lists, mode, workspace and analyser (every call of a session, in practice) reuses it instead
 * of compiling the same context again.
 */
const flowContexts = new WeakMap<
  SubcommandRuleLists,
  { mode: PermissionMode; workspace: Workspace; shell: ShellAnalyzer; context: IndexedBashFlowContext }
>();

function bashFlowContext(request: EvaluationRequest, shell: ShellAnalyzer, rules: RuleIndex) {
  const { input, workspace, mode } = request;
  const lists = subcommandRuleLists(input, 'Bash', workspace, rules);
  const last = flowContexts.get(lists);
  if (last && last.mode === mode && last.workspace === workspace && last.shell === shell) return last.context;
  const context = indexBashFlowContext({
    mode,
    workspace,
    ...lists,
    family: 'Bash',
    analyzer: shell,
    classifyEnvVar: (name) => classifyEnvVarSafely(shell, name),
  });
  flowContexts.set(lists, { mode, workspace, shell, context });
  return context;
}

/** PowerShell deny and ask rules tried on the text of a command no analyser reads. */
function unanalysedRuleVerdict(
  request: EvaluationRequest,
  target: Extract<PermissionTarget, { kind: 'command' }>,
  rules: RuleIndex,
): Verdict | undefined {
  if (target.shell !== 'powershell') return undefined;
  const { shellRules } = subcommandRuleLists(request.input, 'PowerShell', request.workspace, rules);
  return powerShellRuleVerdict(target.command, shellRules);
}

function commandVerdict(
  request: EvaluationRequest,
  target: Extract<PermissionTarget, { kind: 'command' }>,
  rules: RuleIndex,
): Verdict {
  const verdict: Verdict =
    request.shell && target.shell === 'bash'
      ? evaluateIndexedShellCommand(
          target.command,
          request.workspace.cwd,
          bashFlowContext(request, request.shell, rules),
          target.analysis,
        )
      : (unanalysedRuleVerdict(request, target, rules) ?? {
          behavior: 'ask',
          kind: 'analysis',
          reason: 'no shell analyser is available to check the command',
          classifierApprovable: true,
          steps: [],
          suggestions: [],
        });
  // Bypass may settle an analysis ask only when no shell deny/ask rule could have been dodged.
  if (
    verdict.behavior === 'ask' &&
    verdict.kind === 'analysis' &&
    shellRulesPresent({
      ...subcommandRules(request, target.shell === 'bash' ? 'Bash' : 'PowerShell', rules),
      classifyEnvVar: () => 'neutral',
    })
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
