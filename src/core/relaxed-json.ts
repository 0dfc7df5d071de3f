/**
 * JSON with `//` and block comments and trailing commas (what editors call JSONC), parsed; undefined
 * when it is not that either. Strings are copied as they are, so a `//` inside one stays.
 */
export function relaxedJson(text: string): unknown {
  const pieces: string[] = [];
  for (const [token] of text.matchAll(relaxedTokens)) {
    if (token.startsWith('//') || token.startsWith('/*')) pieces.push(' ');
    else if (token === '}' || token === ']') {
      // A comma before a closing bracket goes (strings are whole tokens, so never one inside them).
      let last = pieces.length - 1;
      while (last >= 0 && (pieces[last] as string).trim() === '') last--;
      if (last >= 0) pieces[last] = (pieces[last] as string).replace(/,\s*$/, '');
      pieces.push(token);
    } else pieces.push(token);
  }
  try {
    return JSON.parse(pieces.join(''));
  } catch {
    return undefined;
  }
}

/** A string literal, a comment, a closing bracket, a run of anything else, or one character. */
const relaxedTokens = /"(?:[^"\\]|\\[\s\S])*"|\/\/[^\n]*|\/\*[\s\S]*?\*\/|[}\]]|[^"/}\]]+|[\s\S]/g;

/** Text without a leading byte order mark (an encoding mark editors on Windows write, not syntax). */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
