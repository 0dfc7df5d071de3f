/** One replacement in a file, as Edit and MultiEdit receive it. */
export interface StringEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

/** Why an edit could not be applied; the codes are Edit's validation codes. */
export type EditFailure =
  | { kind: 'no-op'; code: 1 }
  | { kind: 'not-found'; code: 8 }
  | { kind: 'ambiguous'; code: 9; count: number };

/** The result of applying one edit to some text. */
export type EditOutcome =
  | { ok: true; text: string; actualOld: string; actualNew: string; index: number; count: number }
  | { ok: false; failure: EditFailure };

const curlyToStraight: Record<string, string> = { '‘': "'", '’': "'", '“': '"', '”': '"' };

/** Curly quotes replaced by straight ones; each is one UTF-16 unit, so indexes stay aligned. */
export function normalizeQuotes(text: string): string {
  return text.replace(/[‘’“”]/g, (quote) => curlyToStraight[quote] ?? quote);
}

/**
 * The text in `content` that `search` refers to: itself when present, else the same text with the
 * file's curly quotes where the model wrote straight ones. Undefined when neither is present.
 */
export function findActualString(content: string, search: string): string | undefined {
  if (content.includes(search)) return search;
  const index = normalizeQuotes(content).indexOf(normalizeQuotes(search));
  return index === -1 ? undefined : content.slice(index, index + search.length);
}

const openingContext = /[\s([{<\u2014\u2013-]/;

function curly(text: string, straight: "'" | '"', open: string, close: string): string {
  let result = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (char !== straight) {
      result += char;
      continue;
    }
    const before = index === 0 ? '' : (text[index - 1] as string);
    const after = text[index + 1] ?? '';
    if (straight === "'" && /\p{L}/u.test(before) && /\p{L}/u.test(after))
      result += close; // an apostrophe
    else result += before === '' || openingContext.test(before) ? open : close;
  }
  return result;
}

/**
 * When the match needed quote normalisation, gives `newString` the file's curly style so the edit does
 * not silently straighten the document's typography.
 */
export function preserveQuoteStyle(oldString: string, actualOld: string, newString: string): string {
  if (oldString === actualOld) return newString;
  let result = newString;
  if (/[“”]/.test(actualOld)) result = curly(result, '"', '“', '”');
  if (/[‘’]/.test(actualOld)) result = curly(result, "'", '‘', '’');
  return result;
}

/** How many non-overlapping times `needle` occurs in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let count = 0;
  for (
    let index = haystack.indexOf(needle);
    index !== -1;
    index = haystack.indexOf(needle, index + needle.length)
  ) {
    count++;
  }
  return count;
}

/**
 * Applies one exact-string edit. Refuses no-ops, missing strings and ambiguous matches (unless
 * `replace_all`). Deleting a whole line also removes its newline, so no blank line is left behind.
 * In a file whose lines end differently (some `\r\n`, some `\n`), matching ignores line endings
 * ({@link applyAcrossLineEndings}).
 */
export function applyStringEdit(content: string, edit: StringEdit): EditOutcome {
  if (edit.old_string === edit.new_string) return { ok: false, failure: { kind: 'no-op', code: 1 } };
  // Pure CRLF files arrive here with LF endings (see decodeText); a \r\n left in the text means mixed.
  if (content.includes('\r\n') || edit.old_string.includes('\r\n'))
    return applyAcrossLineEndings(content, edit);
  const actualOld = findActualString(content, edit.old_string);
  if (actualOld === undefined) return { ok: false, failure: { kind: 'not-found', code: 8 } };
  const count = countOccurrences(content, actualOld);
  if (count > 1 && !edit.replace_all) return { ok: false, failure: { kind: 'ambiguous', code: 9, count } };
  const actualNew = preserveQuoteStyle(edit.old_string, actualOld, edit.new_string);
  const removeLine =
    !edit.replace_all && actualNew === '' && !actualOld.endsWith('\n') && content.includes(`${actualOld}\n`);
  const target = removeLine ? `${actualOld}\n` : actualOld;
  const index = content.indexOf(target);
  const text = edit.replace_all
    ? content.split(target).join(actualNew)
    : content.slice(0, index) + actualNew + content.slice(index + target.length);
  return { ok: true, text, actualOld: target, actualNew, index, count: edit.replace_all ? count : 1 };
}

/** `text` with every `\r\n` folded to `\n`, and for each index of the folded text its index in `text`. */
function foldLineEndings(text: string): { folded: string; origin: Uint32Array } {
  const origin = new Uint32Array(text.length + 1);
  let folded = '';
  let start = 0;
  let length = 0;
  for (let index = text.indexOf('\r\n'); index !== -1; index = text.indexOf('\r\n', index + 2)) {
    for (let at = start; at < index; at++) origin[length++] = at;
    origin[length++] = index; // the pair starts at its \r
    folded += `${text.slice(start, index)}\n`;
    start = index + 2;
  }
  for (let at = start; at <= text.length; at++) origin[length++] = at;
  folded += text.slice(start);
  return { folded, origin: origin.subarray(0, length) };
}

/** The ending (`\r\n` or `\n`) of each line break in `text`, in order. */
function lineEndingsOf(text: string): string[] {
  return [...text.matchAll(/\r?\n/g)].map((match) => match[0]);
}

/**
 * Gives `replacement`'s line breaks the endings of the text it replaces, line by line: the k-th break
 * takes the k-th replaced break's ending; extra lines take the last one, or, when the replaced text had
 * no break, the ending of the line it sat on (`fallback`).
 */
function withEndingsOf(replaced: string, replacement: string, fallback: string): string {
  const endings = lineEndingsOf(replaced);
  let k = 0;
  return replacement.replace(/\r?\n/g, () => endings[k++] ?? endings.at(-1) ?? fallback);
}

/**
 * An edit matched with line endings ignored, for files where some lines end in `\r\n` and others in
 * `\n` (Read shows both alike, so the model cannot copy the difference). Each matched line keeps its own
 * ending in the result.
 */
function applyAcrossLineEndings(content: string, edit: StringEdit): EditOutcome {
  const { folded, origin } = foldLineEndings(content);
  const search = edit.old_string.replaceAll('\r\n', '\n');
  const actualFolded = findActualString(folded, search);
  if (actualFolded === undefined || actualFolded === '')
    return { ok: false, failure: { kind: 'not-found', code: 8 } };
  const count = countOccurrences(folded, actualFolded);
  if (count > 1 && !edit.replace_all) return { ok: false, failure: { kind: 'ambiguous', code: 9, count } };
  const newFolded = preserveQuoteStyle(search, actualFolded, edit.new_string.replaceAll('\r\n', '\n'));
  // Deleting a whole line also removes its line break, as for exact matches.
  const removeLine =
    !edit.replace_all &&
    newFolded === '' &&
    !actualFolded.endsWith('\n') &&
    folded.includes(`${actualFolded}\n`);
  const target = removeLine ? `${actualFolded}\n` : actualFolded;
  const spans: Array<[number, number]> = [];
  for (
    let at = folded.indexOf(target);
    at !== -1 && (edit.replace_all || spans.length === 0);
    at = folded.indexOf(target, at + target.length)
  ) {
    spans.push([origin[at] as number, origin[at + target.length] as number]);
  }
  const edits = spans.map(([start, end]) => {
    const replaced = content.slice(start, end);
    const lineEnd = content.indexOf('\n', end);
    const fallback = lineEnd > 0 && content[lineEnd - 1] === '\r' ? '\r\n' : '\n';
    return { start, end, replaced, replacement: withEndingsOf(replaced, newFolded, fallback) };
  });
  let text = '';
  let cursor = 0;
  for (const { start, end, replacement } of edits) {
    text += content.slice(cursor, start) + replacement;
    cursor = end;
  }
  text += content.slice(cursor);
  const first = edits[0] as (typeof edits)[number];
  return {
    ok: true,
    text,
    actualOld: first.replaced,
    actualNew: first.replacement,
    index: first.start,
    count: spans.length,
  };
}

/** The message the model reads for a failed edit. */
export function describeEditFailure(failure: EditFailure, filePath: string, oldString: string): string {
  switch (failure.kind) {
    case 'no-op':
      return 'No changes to make: old_string and new_string are exactly the same. Change new_string, or skip this edit.';
    case 'not-found':
      return `String to replace not found in ${filePath}:\n${oldString}\nRead the file again and copy old_string exactly, including whitespace and indentation.`;
    case 'ambiguous':
      return `Found ${failure.count} matches of the string to replace, but replace_all is false. To replace every one, set replace_all to true; to replace only one, add surrounding lines to old_string so it matches exactly once.`;
  }
}
