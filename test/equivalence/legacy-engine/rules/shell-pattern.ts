// Frozen copy of the permission engine before the rule index, kept only for the equivalence run
// (test/equivalence). Do not edit: it is the reference the current engine is compared with.
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
    compiled = compileUncached(pattern);
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}

// Rules are matched against every subcommand of every call; compiling each pattern once matters.
const compiledPatterns = new LRUCache<string, ShellPattern>({ max: 8192 });

function compileUncached(pattern: string): ShellPattern {
  if (pattern.endsWith(':*') && !pattern.endsWith('\\:*')) {
    const prefix = pattern.slice(0, -2);
    if (!tokenize(prefix).some((part) => 'star' in part)) return prefixPattern(pattern, prefix);
  }
  const parts = tokenize(pattern);
  const stars = parts.filter((part) => 'star' in part).length;
  if (stars === 0) {
    const literal = parts.map((part) => ('literal' in part ? part.literal : '')).join('');
    return { source: pattern, kind: 'exact', regex: new RegExp(`^${escapeRegex(literal)}$`, 's') };
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
  return { source: pattern, kind: 'wildcard', regex: new RegExp(`^${body}$`, 's') };
}

function prefixPattern(source: string, prefix: string): ShellPattern {
  const trimmed = prefix.replace(/\s+$/, '');
  return {
    source,
    kind: 'prefix',
    prefix: trimmed,
    regex: new RegExp(`^${escapeRegex(trimmed)}(?:\\s.*)?$`, 's'),
  };
}

/** Whether a command string matches a compiled pattern. */
export function matchesShellPattern(pattern: ShellPattern, command: string): boolean {
  return pattern.regex.test(command);
}
