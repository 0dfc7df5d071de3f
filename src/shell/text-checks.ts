/**
 * Character-level screening done before parsing. Each check closes a gap where the tree-sitter
 * grammar, bash, zsh or a person reading the command could disagree about what the text means.
 */

/** NUL, C0 controls except tab and newline (CR included: bash keeps it inside words), DEL, C1 controls. */
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * Invisible or space-like code points: bash does not split on them, but people and other parsers
 * do, so they can hide an argument or make two commands look like one.
 */
const deceptiveRanges: ReadonlyArray<readonly [number, number]> = [
  [0x00a0, 0x00a0],
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x1680, 0x1680],
  [0x180e, 0x180e],
  [0x2000, 0x200f],
  [0x2028, 0x202f],
  [0x205f, 0x206f],
  [0x3000, 0x3000],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
];

/** Any code unit from U+00A0 up (surrogates included). */
const beyondLatinControls = /[^\u0000-\u009f]/;

function findDeceptive(source: string): number | undefined {
  for (const char of source) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0xa0) continue;
    if (deceptiveRanges.some(([low, high]) => code >= low && code <= high)) return code;
  }
  return undefined;
}

/** A reason the text cannot be analysed safely, or null when it passes. */
export function screenCommandText(source: string): string | null {
  const control = controlCharacters.exec(source);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).padStart(4, '0');
    return `the command contains the control character U+${code}; remove it or write it with printf`;
  }
  // Everything below looks only at code points from U+00A0 up.
  if (!beyondLatinControls.test(source)) return null;
  const deceptive = findDeceptive(source);
  if (deceptive !== undefined) {
    const code = deceptive.toString(16).padStart(4, '0');
    return `the command contains the invisible or space-like character U+${code}`;
  }
  if (/[\ud800-\udfff]/u.test(source.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) {
    return 'the command contains an unpaired surrogate';
  }
  return null;
}
