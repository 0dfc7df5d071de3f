import { LRUCache } from 'lru-cache';

/**
 * Shell rule patterns (`Bash(git *)`, `Bash(npm run test:*)`, `Bash(npm run build)`) compiled to
 * anchored regular expressions.
 */

/** A compiled shell rule pattern. */
export interface ShellPattern {
  /** The pattern as written in the rule. */
  source: string;
  /** `exact`: no wildcard; `prefix`: legacy `x:*` or a lone trailing ` *`; `wildcard`: anything else. */
  kind: 'exact' | 'prefix' | 'wildcard';
  /** For `prefix`: the words that must start the command. */
  prefix?: string;
  /**
   * The literal text every matching command starts with (for `exact`, the whole command), so a rule
   * index can tell which first word a match must have.
   */
  head?: string;
  regex: RegExp;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Splits a pattern into literal text and unescaped `*` markers (`\*` is a literal star). */
function tokenize(pattern: string): Array<{ literal: string } | { star: true }> {
  const parts: Array<{ literal: string } | { star: true }> = [];
  let literal = '';
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '\\' && pattern[index + 1] === '*') {
      literal += '*';
      index++;
    } else if (character === '*') {
      parts.push({ literal });
      literal = '';
      parts.push({ star: true });
    } else {
      literal += character;
    }
  }
  parts.push({ literal });
  return parts.filter((part) => !('literal' in part) || part.literal !== '');
}

/**
 * Compiles a shell rule's content. A trailing ` *` that is the only wildcard makes the arguments
 * optional and keeps a word boundary (`ls *` matches `ls` and `ls -la`, not `lsof`); legacy `x:*`
 * means the same; any other `*` matches any run of characters, spaces included.
 */
export function compileShellPattern(pattern: string): ShellPattern {
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    compiled = compileShellPatternOnce(pattern);
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}

// For callers outside a rule index (conditions, ad-hoc checks); a rule index keeps its own patterns.
const compiledPatterns = new LRUCache<string, ShellPattern>({ max: 8192 });

/** Compiles a pattern without the shared cache (a rule index keeps what it compiles for its lifetime). */
export function compileShellPatternOnce(pattern: string): ShellPattern {
  if (pattern.endsWith(':*') && !pattern.endsWith('\\:*')) {
    const prefix = pattern.slice(0, -2);
    if (!tokenize(prefix).some((part) => 'star' in part)) return prefixPattern(pattern, prefix);
  }
  const parts = tokenize(pattern);
  const stars = parts.filter((part) => 'star' in part).length;
  if (stars === 0) {
    const literal = parts.map((part) => ('literal' in part ? part.literal : '')).join('');
    return {
      source: pattern,
      kind: 'exact',
      head: literal,
      regex: new RegExp(`^${escapeRegex(literal)}$`, 's'),
    };
  }
  const last = parts[parts.length - 1];
  const beforeLast = parts[parts.length - 2];
  if (
    stars === 1 &&
    last &&
    'star' in last &&
    beforeLast &&
    'literal' in beforeLast &&
    beforeLast.literal.endsWith(' ')
  ) {
    return prefixPattern(pattern, beforeLast.literal.slice(0, -1));
  }
  const body = parts.map((part) => ('star' in part ? '.*' : escapeRegex(part.literal))).join('');
  const first = parts[0];
  return {
    source: pattern,
    kind: 'wildcard',
    head: first && 'literal' in first ? first.literal : '',
    regex: new RegExp(`^${body}$`, 's'),
  };
}

function prefixPattern(source: string, prefix: string): ShellPattern {
  const trimmed = prefix.replace(/\s+$/, '');
  return {
    source,
    kind: 'prefix',
    prefix: trimmed,
    head: trimmed,
    regex: new RegExp(`^${escapeRegex(trimmed)}(?:\\s.*)?$`, 's'),
  };
}

/** Whether a command string matches a compiled pattern. */
export function matchesShellPattern(pattern: ShellPattern, command: string): boolean {
  return pattern.regex.test(command);
}

/** The text up to its first whitespace character (the whole text when it has none). */
export function firstWordOf(text: string): string {
  const end = text.search(/\s/);
  return end === -1 ? text : text.slice(0, end);
}

/**
 * The first word every command this pattern matches starts with, or undefined when a wildcard can
 * stand in the first word (`*rm*`, `git*`): such a pattern must be tried on every command.
 */
export function shellPatternFirstWord(pattern: ShellPattern): string | undefined {
  const head = pattern.head ?? '';
  if (pattern.kind === 'wildcard' && !/\s/.test(head)) return undefined;
  return firstWordOf(head);
}
