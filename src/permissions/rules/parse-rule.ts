import { EfferentError } from '../../core/index.ts';
import type { RuleValue } from './rule-types.ts';
import { canonicalToolName } from './tool-names.ts';

const toolNamePattern = /^[A-Za-z0-9_*-]+$/;

/** Escapes `(`, `)` and `\` so content survives inside `Tool(...)`. */
export function escapeRuleContent(content: string): string {
  return content.replace(/[\\()]/g, (character) => `\\${character}`);
}

/** Reverses {@link escapeRuleContent}; a backslash before any other character stays as written. */
export function unescapeRuleContent(content: string): string {
  return content.replace(/\\([\\()])/g, '$1');
}

/** Index of the first `(` not preceded by an escaping backslash, or -1. */
function firstUnescapedParen(text: string): number {
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '\\') {
      index++;
      continue;
    }
    if (character === '(') return index;
  }
  return -1;
}

/** True when the final `)` is not itself escaped (an odd run of backslashes before it escapes it). */
function endsWithUnescapedParen(text: string): boolean {
  if (!text.endsWith(')')) return false;
  let backslashes = 0;
  for (let index = text.length - 2; index >= 0 && text[index] === '\\'; index--) backslashes++;
  return backslashes % 2 === 0;
}

/**
 * Parses `Tool`, `Tool(content)` or `Tool()`. `Tool()` and `Tool(*)` mean the whole tool, like `Tool`.
 * Legacy names are mapped (`Task` → `Agent`). Throws `rule_invalid` with a message saying what is wrong.
 */
export function parseRule(text: string): RuleValue {
  const trimmed = text.trim();
  if (trimmed === '')
    throw new EfferentError('rule_invalid', 'A permission rule is empty; write `Tool` or `Tool(content)`.');
  const open = firstUnescapedParen(trimmed);
  if (open === -1) {
    if (!toolNamePattern.test(trimmed)) {
      throw new EfferentError(
        'rule_invalid',
        `Rule "${text}" is not a tool name; write \`Tool\` or \`Tool(content)\`.`,
      );
    }
    return { toolName: canonicalToolName(trimmed) };
  }
  const name = trimmed.slice(0, open);
  if (!toolNamePattern.test(name)) {
    throw new EfferentError('rule_invalid', `Rule "${text}" has an invalid tool name "${name}".`);
  }
  if (!endsWithUnescapedParen(trimmed) || trimmed.length - 1 <= open) {
    throw new EfferentError(
      'rule_invalid',
      `Rule "${text}" must end with ")"; escape parentheses inside the content as \\( and \\).`,
    );
  }
  const raw = trimmed.slice(open + 1, -1);
  const content = unescapeRuleContent(raw);
  const toolName = canonicalToolName(name);
  if (content === '' || content === '*') return { toolName };
  return { toolName, ruleContent: content };
}

/** Prints a rule so that {@link parseRule} gives it back unchanged. */
export function printRule(value: RuleValue): string {
  if (value.ruleContent === undefined) return value.toolName;
  return `${value.toolName}(${escapeRuleContent(value.ruleContent)})`;
}
