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
    let best =
      this.anyFirstWord.length > 0 ? earliestMatch(this.anyFirstWord, texts, accept, undefined) : undefined;
    if (this.byFirstWord.size === 0) return best;
    // Each text only meets the rules filed under its own first word.
    for (const text of texts) {
      const bucket = this.byFirstWord.get(firstWordOf(text));
      if (bucket) best = earliestMatch(bucket, [text], accept, best);
    }
    return best;
  }
}

/**
 * The first entry of `bucket` (kept in rule order) that `accept` admits and whose pattern matches one
 * of `texts`, when it comes before `best`; else `best`.
 */
function earliestMatch(
  bucket: readonly IndexedShellRule[],
  texts: readonly string[],
  accept: ((pattern: ShellPattern) => boolean) | undefined,
  best: IndexedShellRule | undefined,
): IndexedShellRule | undefined {
  for (const entry of bucket) {
    if (best !== undefined && entry.order >= best.order) return best;
    if (accept && !accept(entry.pattern)) continue;
    for (const text of texts) if (entry.pattern.regex.test(text)) return entry;
  }
  return best;
}
