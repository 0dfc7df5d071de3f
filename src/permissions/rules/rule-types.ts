import type { PermissionBehavior, RuleSource } from '../../core/index.ts';

/** The parsed form of `Tool` or `Tool(content)`. */
export interface RuleValue {
  /** Canonical tool name (legacy aliases already mapped), or a tool-name glob such as `mcp__*`. */
  toolName: string;
  /** The text between the parentheses, unescaped; absent for a tool-wide rule. */
  ruleContent?: string;
}

/** A rule as the engine uses it: where it came from, what it decides, and what anchors its paths. */
export interface PermissionRule {
  source: RuleSource;
  behavior: PermissionBehavior;
  value: RuleValue;
  /** The rule as written, for messages and traces. */
  text: string;
  /** Directory a `/x` path pattern is relative to (the settings file's project root, or the cwd). */
  root: string;
  /** The settings file (or flag) the rule came from, for messages. */
  origin: string;
}

/** Rules grouped by behavior, every list in precedence order of its sources. */
export interface RuleSet {
  allow: readonly PermissionRule[];
  deny: readonly PermissionRule[];
  ask: readonly PermissionRule[];
}

/** An empty rule set. */
export const emptyRuleSet: RuleSet = { allow: [], deny: [], ask: [] };
