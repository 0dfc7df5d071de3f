/** Only these characters: an exact name, or alternatives separated by `|` or `,`. */
const simpleMatcherPattern = /^[A-Za-z0-9_\- ,|]+$/;

/**
 * Claude Code's matcher rules: `*`, empty or omitted matches everything; a plain word list is an exact
 * match against any alternative; anything else is an unanchored regular expression (so `Edit.*` also
 * matches `NotebookEdit`). Events without a match value (Stop, UserPromptSubmit…) ignore matchers.
 * An invalid regular expression matches nothing.
 */
export function matchesHookMatcher(matcher: string | undefined, value: string | undefined): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (value === undefined) return true;
  if (simpleMatcherPattern.test(matcher)) {
    return matcher
      .split(/[|,]/)
      .map((part) => part.trim())
      .some((part) => part !== '' && part === value);
  }
  try {
    return new RegExp(matcher).test(value);
  } catch {
    return false;
  }
}
