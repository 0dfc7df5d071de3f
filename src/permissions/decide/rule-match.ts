import { join } from 'node:path';
import type { PermissionBehavior } from '../../core/index.ts';
import { aliasSpellings, type CanonicalPath } from '../paths/canonical-path.ts';
import { type AnchoredPathPattern, anchorPathPattern, pathPatternMatches } from '../rules/path-pattern.ts';
import {
  type LinkedAnchor,
  linkedAnchorsOf,
  literalDirectoryOf,
  reanchoredSpellings,
} from '../rules/path-rule-index.ts';
import type { PermissionRule } from '../rules/rule-types.ts';
import { toolNameMatches } from '../rules/tool-names.ts';
import type { Workspace } from './workspace.ts';

/** The tool facts rule matching needs. */
export interface RuleSubject {
  name: string;
  aliases: readonly string[];
}

/** The first rule without content that names this tool (directly, by alias, glob or MCP server). */
export function findToolWideRule(
  rules: readonly PermissionRule[],
  subject: RuleSubject,
): PermissionRule | undefined {
  return rules.find(
    (rule) =>
      rule.value.ruleContent === undefined &&
      toolNameMatches(rule.value.toolName, subject.name, subject.aliases),
  );
}

/** Rules with content whose tool name is one of `families`. */
export function contentRules(
  rules: readonly PermissionRule[],
  families: readonly string[],
): PermissionRule[] {
  return rules.filter(
    (rule) => rule.value.ruleContent !== undefined && families.includes(rule.value.toolName),
  );
}

/**
 * For `Tool(param:value)` rules: whether the input's top-level field equals the value (compared as
 * written, before any normalisation). Undefined when the rule is not a parameter rule for this input.
 */
export function parameterRuleMatches(
  rule: PermissionRule,
  input: Record<string, unknown>,
): boolean | undefined {
  const content = rule.value.ruleContent;
  if (content === undefined) return undefined;
  const match = /^([A-Za-z_][A-Za-z0-9_]*):(.*)$/s.exec(content);
  if (!match?.[1] || !Object.hasOwn(input, match[1])) return undefined;
  const value = input[match[1]];
  if (value !== null && typeof value === 'object') return false;
  return String(value) === match[2];
}

// Anchoring depends only on the rule and the workspace's cwd and home; decisions reuse it.
const anchoredRules = new WeakMap<PermissionRule, { key: string; anchored: AnchoredPathPattern }>();

function anchoredRule(
  rule: PermissionRule,
  behavior: PermissionBehavior,
  workspace: Workspace,
): AnchoredPathPattern {
  const key = `${behavior}\0${workspace.cwd}\0${workspace.home}`;
  const cached = anchoredRules.get(rule);
  if (cached?.key === key) return cached.anchored;
  const anchored = anchorPathPattern(rule.value.ruleContent ?? '', behavior, {
    root: rule.root,
    cwd: workspace.cwd,
    home: workspace.home,
  });
  anchoredRules.set(rule, { key, anchored });
  return anchored;
}

// Which anchors are links is asked of the disk once per workspace and rule list (search filters ask per result).
const linkedAnchorMemo = new WeakMap<
  Workspace,
  { rules: readonly PermissionRule[]; linked: LinkedAnchor[] }
>();

function linkedAnchorsFor(rules: readonly PermissionRule[], workspace: Workspace): LinkedAnchor[] {
  const known = linkedAnchorMemo.get(workspace);
  if (known?.rules === rules) return known.linked;
  const linked = linkedAnchorsOf([workspace.cwd, workspace.home, ...rules.map((rule) => rule.root)]);
  linkedAnchorMemo.set(workspace, { rules, linked });
  return linked;
}

/** Every spelling of a path that deny and ask rules are tried against. */
export function denyPathSpellings(path: CanonicalPath, cwd: string): string[] {
  return [
    ...new Set([
      path.lexical,
      path.physical,
      ...aliasSpellings(path.lexical, cwd),
      ...aliasSpellings(path.physical, cwd),
    ]),
  ];
}

/**
 * The first path rule covering a path. Deny and ask rules match if any spelling matches (ignoring
 * case, and covering what is inside a directory); allow rules only if the link path and its target
 * both match, case-sensitively.
 */
export function findPathRule(
  rules: readonly PermissionRule[],
  path: CanonicalPath,
  behavior: PermissionBehavior,
  workspace: Workspace,
): PermissionRule | undefined {
  const anchorsFor = (rule: PermissionRule) => ({
    root: rule.root,
    cwd: workspace.cwd,
    home: workspace.home,
  });
  if (behavior === 'allow') {
    const options = { caseInsensitive: false, coverChildren: false };
    return rules.find((rule) => {
      const anchored = anchorPathPattern(rule.value.ruleContent ?? '', 'allow', anchorsFor(rule));
      return (
        pathPatternMatches(anchored, path.lexical, options) &&
        pathPatternMatches(anchored, path.physical, options)
      );
    });
  }
  const spellings = reanchoredSpellings(
    denyPathSpellings(path, workspace.cwd),
    linkedAnchorsFor(rules, workspace),
  );
  const options = { caseInsensitive: true, coverChildren: true };
  return rules.find((rule) => {
    const anchored = anchoredRule(rule, behavior, workspace);
    return spellings.some((spelling) => pathPatternMatches(anchored, spelling, options));
  });
}

/**
 * The longest literal directory a path rule is confined to (its anchor plus the pattern's text up to
 * the first wildcard), used to tell whether a shell glob could reach a path the rule covers. Bare
 * patterns match at any depth, so they are confined only to their anchor.
 */
export function pathRuleLiteralPrefix(rule: PermissionRule, workspace: Workspace): string {
  const anchored = anchorPathPattern(rule.value.ruleContent ?? '', rule.behavior, {
    root: rule.root,
    cwd: workspace.cwd,
    home: workspace.home,
  });
  if (!anchored.pattern.startsWith('/')) return anchored.base;
  return join(anchored.base, literalDirectoryOf(anchored.pattern));
}
