/** A value's position in JSON text: `[start, end)`. */
export interface Span {
  start: number;
  end: number;
}

function skipWhitespace(text: string, index: number): number {
  while (index < text.length && /\s/.test(text[index] as string)) index++;
  return index;
}

function skipString(text: string, index: number): number {
  // index points at the opening quote
  for (let position = index + 1; position < text.length; position++) {
    const char = text[position];
    if (char === '\\') position++;
    else if (char === '"') return position + 1;
  }
  throw new SyntaxError('Unterminated string in JSON');
}

/** The index just past the JSON value starting at `index` (after whitespace). */
export function skipValue(text: string, index: number): number {
  const start = skipWhitespace(text, index);
  const char = text[start];
  if (char === '"') return skipString(text, start);
  if (char === '{' || char === '[') {
    let depth = 0;
    for (let position = start; position < text.length; position++) {
      const current = text[position];
      if (current === '"') position = skipString(text, position) - 1;
      else if (current === '{' || current === '[') depth++;
      else if (current === '}' || current === ']') {
        depth--;
        if (depth === 0) return position + 1;
      }
    }
    throw new SyntaxError('Unterminated object or array in JSON');
  }
  let position = start;
  while (position < text.length && !/[\s,\]}]/.test(text[position] as string)) position++;
  return position;
}

/** Where the top-level `cells` array sits and where each element is, so edits can splice text. */
export interface CellsLayout {
  /** The `[` … `]` of the array. */
  array: Span;
  cells: Span[];
}

/** Finds the `cells` array of a notebook's top-level object by scanning, not re-serialising. */
export function locateCells(text: string): CellsLayout {
  let found: CellsLayout | undefined;
  let index = skipWhitespace(text, 0);
  if (text[index] !== '{') throw new SyntaxError('A notebook must be a JSON object');
  index++;
  for (;;) {
    index = skipWhitespace(text, index);
    if (text[index] === '}') break;
    const keyEnd = skipString(text, index);
    const key = JSON.parse(text.slice(index, keyEnd)) as string;
    index = skipWhitespace(text, keyEnd);
    if (text[index] !== ':') throw new SyntaxError('Expected ":" in JSON object');
    const valueStart = skipWhitespace(text, index + 1);
    const valueEnd = skipValue(text, valueStart);
    if (key === 'cells' && found) {
      // JSON.parse keeps the last one, a splice would change the first: refuse rather than guess.
      throw new SyntaxError('The notebook has the "cells" key twice');
    }
    if (key === 'cells' && text[valueStart] === '[') {
      const cells: Span[] = [];
      let position = skipWhitespace(text, valueStart + 1);
      while (text[position] !== ']') {
        const end = skipValue(text, position);
        cells.push({ start: position, end });
        position = skipWhitespace(text, end);
        if (text[position] === ',') position = skipWhitespace(text, position + 1);
      }
      found = { array: { start: valueStart, end: valueEnd }, cells };
    }
    index = skipWhitespace(text, valueEnd);
    if (text[index] === ',') index++;
  }
  if (!found) throw new SyntaxError('The notebook has no "cells" array');
  return found;
}

/** The whitespace before the line that holds `index`, i.e. that line's indentation. */
export function indentationAt(text: string, index: number): string {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
}
