/** Formats lines like `cat -n`: the number right-aligned in six columns, a tab, then the line. */
export function numberLines(lines: readonly string[], firstLineNumber: number): string {
  return lines.map((line, index) => `${String(firstLineNumber + index).padStart(6)}\t${line}`).join('\n');
}

/** Lines `[from, to)` of a text, split on LF, for snippets around an edit. */
export function sliceLines(text: string, from: number, to: number): string[] {
  return text.split('\n').slice(Math.max(0, from), Math.max(0, to));
}
