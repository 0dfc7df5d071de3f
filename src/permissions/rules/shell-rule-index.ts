import type { PermissionRule } from './rule-types.ts';
import {
  compileShellPattern,
  firstWordOf,
  type ShellPattern,
  shellPatternFirstWord,
} from './shell-pattern.ts';

/**
 * Shell rules (`Bash(git push *)`) bucketed by the first word every command they match starts with.
 * A lookup tries only the rules of the first words its texts start with, plus the rules whose first
 * word holds a wildcard (`*rm*`, `git*`), which are tried on every text. It answers exactly what
 * trying every rule in order would answer: the first rule in list order that matches any text.
 */

/** A rule with its compiled pattern and its place in the list. */
export interface IndexedShellRule {
  rule: PermissionRule;
  order: number;
  pattern: ShellPattern;
}

/**
 * Compiles a shell rule list (in precedence order) once. Patterns come from the shared cache, so a
 * new rule set with the same patterns (`efferent check` builds one per case) compiles nothing; the
 * index holds on to them, so a full cache never costs a decision a recompilation.
 */
export function indexShellRules(rules: readonly PermissionRule[]): ShellRuleIndex {
  return new ShellRuleIndex(
    rules.map((rule, order) => ({
      rule,
      order,
      pattern: compileShellPattern(rule.value.ruleContent ?? ''),
    })),
  );
}

/** A compiled, bucketed list of shell rules. */
export class ShellRuleIndex {
  /** The rules, in precedence order. */
  readonly rules: readonly PermissionRule[];
  private readonly byFirstWord = new Map<string, IndexedShellRule[]>();
  private readonly anyFirstWord: IndexedShellRule[] = [];

  constructor(entries: readonly IndexedShellRule[]) {
    this.rules = entries.map((entry) => entry.rule);
    for (const entry of entries) {
      const word = shellPatternFirstWord(entry.pattern);
      if (word === undefined) {
        this.anyFirstWord.push(entry);
        continue;
      }
      const bucket = this.byFirstWord.get(word);
      if (bucket) bucket.push(entry);
      else this.byFirstWord.set(word, [entry]);
    }
  }

  get size(): number {
    return this.rules.length;
  }

  /** Whether some rule could match a text starting with this word. */
  mayMatchFirstWord(word: string): boolean {
    return this.anyFirstWord.length > 0 || this.byFirstWord.has(word);
  }

  /**
   * The first rule (in list order) whose pattern matches one of the texts; `accept` can pass over
   * patterns (an allow rule with a wildcard where only exact rules may speak).
   */
  find(texts: readonly string[], accept?: (pattern: ShellPattern) => boolean): PermissionRule | undefined {
    return this.findEntry(texts, accept)?.rule;
  }

  /** Like {@link find}, with the rule's compiled pattern. */
  findEntry(
    texts: readonly string[],
    accept?: (pattern: ShellPattern) => boolean,
  ): IndexedShellRule | undefined {
    if (this.rules.length === 0 || texts.length === 0) return undefined;
    let best: IndexedShellRule | undefined;
    const scan = (bucket: readonly IndexedShellRule[], candidates: readonly string[]) => {
      for (const entry of bucket) {
        if (best !== undefined && entry.order >= best.order) return;
        if (accept && !accept(entry.pattern)) continue;
        for (const text of candidates) {
          if (entry.pattern.regex.test(text)) {
            best = entry;
            return;
          }
        }
      }
    };
    if (this.anyFirstWord.length > 0) scan(this.anyFirstWord, texts);
    if (this.byFirstWord.size === 0) return best;
    const groups = new Map<string, string[]>();
    for (const text of texts) {
      const word = firstWordOf(text);
      const group = groups.get(word);
      if (group) group.push(text);
      else groups.set(word, [text]);
    }
    for (const [word, group] of groups) {
      const bucket = this.byFirstWord.get(word);
      if (bucket) scan(bucket, group);
    }
    return best;
  }
}
