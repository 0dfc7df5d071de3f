import { EfferentError, errorMessage, type PermissionBehavior, type RuleSource } from '../../core/index.ts';
import { parseRule, printRule } from './parse-rule.ts';
import type { PermissionRule } from './rule-types.ts';
import { isAnchoredAllowGlob, isToolNameGlob } from './tool-names.ts';

/** Input fields a `Tool(param:value)` rule may not name: they are matched by the tool's own rule kind. */
const primaryContentFields = new Set(['command', 'file_path', 'path', 'notebook_path', 'url']);

/** Where a list of rules comes from. */
export interface RuleOrigin {
  source: RuleSource;
  /** File path or flag, for messages. */
  origin: string;
  /** Directory `/x` path patterns start from. */
  root: string;
  /** Key path prefix for error messages, e.g. `permissions.allow`. */
  keyPrefix?: string;
}

/** Result of turning rule strings into rules: the rules kept and notices for the ones skipped. */
export interface BuiltRules {
  rules: PermissionRule[];
  notices: string[];
}

/**
 * Parses one list of rule strings. Unparseable rules throw `settings_invalid` naming the origin and
 * key path; rules that parse but are not allowed where they stand are skipped with a notice.
 */
export function buildRules(
  texts: readonly string[],
  behavior: PermissionBehavior,
  origin: RuleOrigin,
): BuiltRules {
  const rules: PermissionRule[] = [];
  const notices: string[] = [];
  texts.forEach((text, index) => {
    const where = `${origin.keyPrefix ?? `permissions.${behavior}`}[${index}]`;
    let value: ReturnType<typeof parseRule>;
    try {
      value = parseRule(text);
    } catch (error) {
      throw new EfferentError(
        'settings_invalid',
        `Settings ${origin.origin}: key ${where} is invalid: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
    if (behavior === 'allow' && isToolNameGlob(value.toolName) && !isAnchoredAllowGlob(value.toolName)) {
      notices.push(
        `Skipped allow rule ${text} (${origin.origin}, ${where}): a tool-name glob in an allow rule must start with a literal mcp__<server>__ prefix.`,
      );
      return;
    }
    if (['Read', 'Edit'].includes(value.toolName) && value.ruleContent?.startsWith('!')) {
      notices.push(
        `Skipped rule ${text} (${origin.origin}, ${where}): negated path patterns are not supported; write the positive rule instead.`,
      );
      return;
    }
    const param =
      value.ruleContent === undefined ? null : /^([A-Za-z_][A-Za-z0-9_]*):/.exec(value.ruleContent);
    if (param?.[1] && primaryContentFields.has(param[1])) {
      notices.push(
        `Skipped rule ${text} (${origin.origin}, ${where}): ${param[1]} is the tool's main field; write the tool's own rule form instead.`,
      );
      return;
    }
    rules.push({
      source: origin.source,
      behavior,
      value,
      text: printRule(value),
      root: origin.root,
      origin: origin.origin,
    });
  });
  return { rules, notices };
}
