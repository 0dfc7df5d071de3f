import { numberLines } from './line-numbers.ts';

/** Lines of context shown around an edit in the model's confirmation. */
export const snippetContextLines = 4;

/** A numbered excerpt of the edited file around lines `[firstLine, lastLine]` (1-based). */
export function editSnippet(
  text: string,
  firstLine: number,
  lastLine: number,
): { startLine: number; text: string } {
  const lines = text.split('\n');
  const start = Math.max(1, firstLine - snippetContextLines);
  const end = Math.min(lines.length, lastLine + snippetContextLines);
  return { startLine: start, text: numberLines(lines.slice(start - 1, end), start) };
}
