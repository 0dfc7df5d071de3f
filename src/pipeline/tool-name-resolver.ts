import type {
  AnyTool,
  DecisionTrace,
  PermissionBehavior,
  PermissionDecision,
  PermissionRequest,
  PermissionResolver,
} from '../core/index.ts';
import { findToolByName } from '../core/tool-lookup.ts';
import { approvalNeededMessage } from './stages/resolve-permission.ts';

/** Options of {@link createToolNameResolver}: rules by tool name, Claude Code style. */
export interface ToolNameRules {
  allow?: readonly string[];
  deny?: readonly string[];
  ask?: readonly string[];
  /** What happens when nothing decides. Default `ask` (which the pipeline turns into a refusal). */
  defaultBehavior?: PermissionBehavior;
}

function ruleToolName(rule: string): { name: string; hasContent: boolean } {
  const open = rule.indexOf('(');
  if (open > 0 && rule.endsWith(')')) return { name: rule.slice(0, open), hasContent: true };
  return { name: rule, hasContent: false };
}

/** A bare rule names the tool (or an alias, or `*`); `mcp__server` and `mcp__server__*` cover a server. */
function ruleNamesTool(name: string, tool: AnyTool): boolean {
  if (name === '*' || findToolByName([tool], name)) return true;
  if (name.startsWith('mcp__')) {
    const prefix = name.endsWith('__*') ? name.slice(0, -1) : `${name}__`;
    return name.split('__').length <= 3 && tool.name.startsWith(prefix);
  }
  return false;
}

/**
 * Finds the first rule of a list that applies. A rule with content (`Bash(git *)`) cannot be checked
 * here; for deny and ask it applies anyway (fail safe: refuse or ask), for allow it never does.
 */
function findRule(
  rules: readonly string[] | undefined,
  tool: AnyTool,
  failSafe: boolean,
): string | undefined {
  return rules?.find((rule) => {
    const { name, hasContent } = ruleToolName(rule);
    return ruleNamesTool(name, tool) && (!hasContent || failSafe);
  });
}

/**
 * A minimal permission resolver for embedders without settings files or a shell analyser (and for
 * tests): allow, deny and ask rules by tool name only. Sessions use the full engine
 * (`createPermissionResolver`); this one never reads a rule's content. Order: deny rule > ask rule > hook deny > hook ask > tool `checkPermissions`
 * (deny/ask) > hook allow > allow rule > default. A hook allow never beats a deny or ask rule, the
 * same contract the full engine honours. Every decision carries a trace.
 */
export function createToolNameResolver(rules: ToolNameRules = {}): PermissionResolver {
  const fallback = rules.defaultBehavior ?? 'ask';
  return async (request: PermissionRequest): Promise<PermissionDecision> => {
    const { tool, hookDecision } = request;
    const trace: DecisionTrace = [];
    const decide = (
      behavior: PermissionBehavior,
      message?: string,
      updatedInput?: Record<string, unknown>,
    ) => {
      const decision: PermissionDecision = { behavior, trace };
      if (message !== undefined) decision.message = message;
      if (updatedInput !== undefined) decision.updatedInput = updatedInput;
      return decision;
    };

    const denyRule = findRule(rules.deny, tool, true);
    if (denyRule) {
      trace.push({
        stage: 'rule',
        outcome: 'deny',
        detail: `deny rule ${denyRule} matches ${tool.name}`,
        rule: denyRule,
      });
      return decide('deny', `Permission to use ${tool.name} has been denied by the rule ${denyRule}.`);
    }
    const askRule = findRule(rules.ask, tool, true);
    if (askRule) {
      trace.push({
        stage: 'rule',
        outcome: 'ask',
        detail: `ask rule ${askRule} matches ${tool.name}`,
        rule: askRule,
      });
      return decide('ask', approvalNeededMessage(tool.name, `the rule ${askRule} requires approval`));
    }
    if (hookDecision && hookDecision.behavior !== 'allow') {
      const detail = `hook ${hookDecision.hook ?? ''} said ${hookDecision.behavior}`.replace('  ', ' ');
      trace.push({
        stage: 'hook',
        outcome: hookDecision.behavior,
        detail,
        ...(hookDecision.hook ? { source: hookDecision.hook } : {}),
      });
      if (hookDecision.behavior === 'ask') {
        return decide('ask', approvalNeededMessage(tool.name, hookDecision.reason ?? 'a hook asked'));
      }
      return decide('deny', hookDecision.reason ?? `A hook denied ${tool.name}.`);
    }
    const own = await tool.checkPermissions(request.input, request.context);
    if (own.behavior === 'deny') {
      trace.push({ stage: 'tool', outcome: 'deny', detail: own.reason ?? own.message });
      return decide('deny', own.message);
    }
    if (own.behavior === 'ask' && hookDecision?.behavior !== 'allow') {
      trace.push({ stage: 'tool', outcome: 'ask', detail: own.message });
      return decide('ask', approvalNeededMessage(tool.name, own.message), own.updatedInput);
    }
    const updatedInput = own.behavior === 'allow' ? own.updatedInput : undefined;
    if (hookDecision?.behavior === 'allow') {
      trace.push({
        stage: 'hook',
        outcome: 'allow',
        detail: `hook ${hookDecision.hook ?? ''} allowed; no deny or ask rule applies`,
      });
      return decide('allow', undefined, updatedInput);
    }
    const allowRule = findRule(rules.allow, tool, false);
    if (allowRule) {
      trace.push({
        stage: 'rule',
        outcome: 'allow',
        detail: `allow rule ${allowRule} matches ${tool.name}`,
        rule: allowRule,
      });
      return decide('allow', undefined, updatedInput);
    }
    trace.push({
      stage: 'resolver',
      outcome: fallback,
      detail: `no rule matched ${tool.name}; default ${fallback}`,
    });
    if (fallback === 'allow') return decide('allow');
    if (fallback === 'ask')
      return decide('ask', approvalNeededMessage(tool.name, `no rule allows ${tool.name}`));
    return decide(
      'deny',
      `No rule allows ${tool.name}, so it was denied. Do not retry it; ask the user to allow it.`,
    );
  };
}
