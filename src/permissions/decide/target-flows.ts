import type { PermissionBehavior, PermissionMode, PermissionTarget } from '../../core/index.ts';
import { isUnresolvable } from '../paths/canonical-path.ts';
import { repositoryControlReason } from '../git-config/repository-paths.ts';
import { protectedPathReason } from '../paths/protected-paths.ts';
import { hostOfUrl } from '../rules/domain-pattern.ts';
import type { RuleIndex } from '../rules/rule-index.ts';
import type { PermissionRule } from '../rules/rule-types.ts';
import { type AskVerdict, describeRule, ruleStep, type Verdict } from './verdict.ts';
import { isInWorkspace, resolveInWorkspace, type Workspace } from './workspace.ts';

/** What a target flow sees. */
export interface TargetFlowContext {
  toolName: string;
  input: Record<string, unknown>;
  /** The rules in force, compiled (in auto mode without broad allow rules). */
  rules: RuleIndex;
  mode: PermissionMode;
  workspace: Workspace;
  /** Set by the path flow: the physical path it judged, which the tool must open and no other. */
  checkedPath?: string;
}

const ask = (kind: AskVerdict['kind'], reason: string, extra: Partial<AskVerdict> = {}): AskVerdict => ({
  behavior: 'ask',
  kind,
  reason,
  classifierApprovable: true,
  steps: [],
  suggestions: [],
  ...extra,
});

const ruleVerdict = (rule: PermissionRule, behavior: PermissionBehavior, reason: string): Verdict =>
  behavior === 'ask'
    ? ask('rule', reason, { rule, steps: [ruleStep(rule, 'ask', `${reason}.`)] })
    : { behavior, reason, rule, steps: [ruleStep(rule, behavior, `${reason}.`)] };

/** The allow rule offered with an answer that asks: the folder of the path. */
function folderSuggestion(lexical: string, write: boolean) {
  return {
    toolName: write ? 'Edit' : 'Read',
    ruleContent: `/${lexical.replace(/^\/+/, '/').replace(/\/[^/]*$/, '')}/**`,
    behavior: 'allow' as const,
  };
}

// The rule families each lookup reads (deny and ask rules of Read also hold for writes).
const readDenyFamilies = ['Read'];
const writeDenyFamilies = ['Edit', 'Read'];
const readAllowFamilies = ['Read', 'Edit'];
const writeAllowFamilies = ['Edit'];

/** Read/Edit path rules: deny → ask → safety → allow (both link and target) → working-directory defaults. */
export function evaluatePathTarget(
  target: Extract<PermissionTarget, { kind: 'path' }>,
  context: TargetFlowContext,
): Verdict | undefined {
  const { workspace, input } = context;
  const path = resolveInWorkspace(target.path, workspace);
  const write = target.access === 'write';
  const denyFamilies = write ? writeDenyFamilies : readDenyFamilies;
  if (isUnresolvable(path))
    return ask('safety', `the path ${JSON.stringify(target.path)} cannot be checked (${path.unresolvable})`);
  context.checkedPath = path.physical;
  const where = path.lexical === path.physical ? path.lexical : `${path.lexical} (→ ${path.physical})`;
  // The workspace carries the two anchors path rules are indexed by.
  const anchors = workspace;
  const deny = context.rules.deny.content(denyFamilies, input).paths('deny', anchors).find(path);
  if (deny) return ruleVerdict(deny, 'deny', `${where} matches ${describeRule(deny)}`);
  const askRules = context.rules.ask.content(denyFamilies, input).paths('ask', anchors);
  const askRule = askRules.find(path);
  if (askRule) return ruleVerdict(askRule, 'ask', `${where} matches ${describeRule(askRule)}`);
  // Grep reads every file below its path; the result filter hides denied files, not asked-about ones.
  if (
    context.toolName === 'Grep' &&
    askRules.size > 0 &&
    askRules.holdsCoveredPath(path, workspace.scanLinks)
  )
    return ask('rule', `${where} holds files a Read ask rule covers, and Grep reads them`);
  if (/^\/proc\/|^\/dev\//.test(path.lexical) || /^\/proc\/|^\/dev\//.test(path.physical)) {
    return ask('safety', `${where} is a process or device path`);
  }
  if (write) {
    const reason =
      protectedPathReason(path.lexical) ??
      protectedPathReason(path.physical) ??
      repositoryControlReason(path.physical, workspace.projectRoot, workspace.home);
    if (reason) return ask('safety', `${where} is protected (${reason})`);
  }
  const allowFamilies = write ? writeAllowFamilies : readAllowFamilies;
  const allow = context.rules.allow.content(allowFamilies, input).paths('allow', anchors).find(path);
  if (allow) return ruleVerdict(allow, 'allow', `${where} matches ${describeRule(allow)}`);
  const inside = isInWorkspace(path, workspace);
  if (!inside)
    return ask('workspace', `${where} is outside the working directories`, {
      suggestions: [folderSuggestion(path.lexical, write)],
    });
  if (!write)
    return {
      behavior: 'allow',
      reason: `${where} is inside the working directories`,
      steps: [
        {
          stage: 'resolver',
          outcome: 'allow',
          detail: `Reading ${where} inside the working directories is allowed.`,
        },
      ],
    };
  if (context.mode === 'acceptEdits' || context.mode === 'auto') {
    return {
      behavior: 'allow',
      reason: `${context.mode} mode allows edits inside the working directories`,
      steps: [{ stage: 'mode', outcome: 'allow', detail: `${context.mode} allows editing ${where}.` }],
    };
  }
  return ask('default', `${context.toolName} changes ${where}`, {
    suggestions: [folderSuggestion(path.lexical, write)],
  });
}

/** WebFetch `domain:` rules on the URL's parsed host. */
export function evaluateUrlTarget(
  target: Extract<PermissionTarget, { kind: 'url' }>,
  context: TargetFlowContext,
): Verdict | undefined {
  const host = hostOfUrl(target.url);
  const families = [context.toolName];
  const domainRules = (behavior: 'allow' | 'deny' | 'ask') =>
    context.rules.of(behavior).content(families, context.input).domains();
  if ('invalid' in host) {
    const anyDeny = domainRules('deny').size > 0;
    return ask(
      'safety',
      `${JSON.stringify(target.url)} cannot be checked: ${host.invalid}${anyDeny ? ' (domain deny rules exist)' : ''}`,
    );
  }
  const deny = domainRules('deny').find(host);
  if (deny) return ruleVerdict(deny, 'deny', `host ${host.host} matches ${describeRule(deny)}`);
  const askRule = domainRules('ask').find(host);
  if (askRule) return ruleVerdict(askRule, 'ask', `host ${host.host} matches ${describeRule(askRule)}`);
  const allow = domainRules('allow').find(host);
  if (allow) return ruleVerdict(allow, 'allow', `host ${host.host} matches ${describeRule(allow)}`);
  return ask('default', `no rule allows fetching from ${host.host}`, {
    suggestions: [{ toolName: context.toolName, ruleContent: `domain:${host.host}`, behavior: 'allow' }],
  });
}

/** `Agent(type)` and `Skill(name *)` rules: exact names, or shell-style wildcards for skills. */
export function evaluateNamedTarget(
  name: string,
  kindLabel: string,
  context: TargetFlowContext,
): Verdict | undefined {
  for (const behavior of ['deny', 'ask', 'allow'] as const) {
    const rule = context.rules.of(behavior).content([context.toolName], context.input).shell().find([name]);
    if (rule) return ruleVerdict(rule, behavior, `${kindLabel} ${name} matches ${describeRule(rule)}`);
  }
  return undefined;
}
