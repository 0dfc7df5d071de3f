import { translateSedRegex } from './sed-regex.ts';

/**
 * A JavaScript implementation of the part of sed that in-place edits use: `s///` commands with the
 * flags g, p, i/I and a number, each optionally behind one address (a line number, `$`, or /regex/).
 * It exists so an edit can be previewed, and then applied exactly as previewed, without running sed.
 */

/** Which lines a command applies to. */
export type SedAddress =
  | { kind: 'all' }
  | { kind: 'line'; line: number }
  | { kind: 'last' }
  | { kind: 'regex'; regex: RegExp };

/** One piece of a replacement. */
type ReplacementPart = { kind: 'text'; text: string } | { kind: 'group'; index: number };

/** One `s` command. */
export interface SedSubstitution {
  address: SedAddress;
  regex: RegExp;
  replacement: ReplacementPart[];
  global: boolean;
  /** Replace from this match on (1 = the first). */
  occurrence: number;
  print: boolean;
}

/** A parsed script. */
export interface SedProgram {
  commands: SedSubstitution[];
  /** `-n`: lines are printed only by the `p` flag. */
  quiet: boolean;
}

const allowedDelimiter = /^[^\\\n.*[\]^$+?(){}&\s\w]$/u;

/** Parses `script`; undefined when it uses anything outside the supported subset. */
export function parseSedScript(
  script: string,
  options: { extended: boolean; quiet: boolean },
): SedProgram | undefined {
  const chars = [...script];
  const commands: SedSubstitution[] = [];
  let index = 0;
  const skipSeparators = () => {
    while (index < chars.length && /[\s;]/.test(chars[index] ?? '')) index += 1;
  };
  skipSeparators();
  while (index < chars.length) {
    let address: SedAddress = { kind: 'all' };
    const char = chars[index] as string;
    if (/[0-9]/.test(char)) {
      let digits = '';
      while (/[0-9]/.test(chars[index] ?? '')) digits += chars[index++];
      const line = Number(digits);
      if (line === 0) return undefined;
      address = { kind: 'line', line };
    } else if (char === '$') {
      index += 1;
      address = { kind: 'last' };
    } else if (char === '/') {
      const body = readDelimited(chars, index + 1, '/');
      if (!body) return undefined;
      index = body.end;
      const translated = translateSedRegex(body.text, options.extended);
      if (!translated) return undefined;
      address = { kind: 'regex', regex: new RegExp(translated.source, 'su') };
    }
    while (chars[index] === ' ' || chars[index] === '\t') index += 1;
    if (chars[index] !== 's') return undefined;
    const delimiter = chars[index + 1];
    if (delimiter === undefined || !allowedDelimiter.test(delimiter)) return undefined;
    const pattern = readDelimited(chars, index + 2, delimiter);
    if (!pattern) return undefined;
    const replacementText = readDelimited(chars, pattern.end, delimiter, true);
    if (!replacementText) return undefined;
    index = replacementText.end;

    let global = false;
    let print = false;
    let ignoreCase = false;
    let occurrence = '';
    while (index < chars.length && !/[\s;}]/.test(chars[index] ?? '')) {
      const flag = chars[index++] as string;
      if (flag === 'g' && !global) global = true;
      else if (flag === 'p' && !print) print = true;
      else if ((flag === 'i' || flag === 'I') && !ignoreCase) ignoreCase = true;
      else if (/[0-9]/.test(flag)) occurrence += flag;
      else return undefined; // w, e, m, M and anything unknown
    }
    if (occurrence !== '' && (Number(occurrence) === 0 || !/^\d+$/.test(occurrence))) return undefined;
    // Only whitespace up to the next `;` or newline: comments, braces and trailing commands are unsupported.
    while (chars[index] === ' ' || chars[index] === '\t') index += 1;
    if (index < chars.length && chars[index] !== ';' && chars[index] !== '\n') return undefined;

    const translated = translateSedRegex(pattern.text, options.extended);
    if (!translated) return undefined;
    const replacement = parseReplacement(replacementText.text, translated.groups);
    if (!replacement) return undefined;
    commands.push({
      address,
      regex: new RegExp(translated.source, ignoreCase ? 'gsui' : 'gsu'),
      replacement,
      global,
      occurrence: occurrence === '' ? 1 : Number(occurrence),
      print,
    });
    skipSeparators();
  }
  if (commands.length === 0) return undefined;
  return { commands, quiet: options.quiet };
}

/**
 * Reads up to an unescaped `delimiter`. An escaped delimiter becomes the bare character (sed's rule);
 * other escapes are kept for the regex or replacement parser.
 */
function readDelimited(
  chars: string[],
  start: number,
  delimiter: string,
  isReplacement = false,
): { text: string; end: number } | undefined {
  let text = '';
  for (let index = start; index < chars.length; index += 1) {
    const char = chars[index] as string;
    if (char === '\\') {
      const next = chars[index + 1];
      if (next === undefined) return undefined;
      if (next === delimiter && delimiter === '|' && !isReplacement) return undefined; // `\|` is ambiguous here
      text += next === delimiter ? (isReplacement ? `\\${next}` : literalFor(next)) : `\\${next}`;
      index += 1;
      continue;
    }
    if (char === '\n') return undefined; // an unescaped newline ends the command early in sed
    if (char === delimiter) return { text, end: index + 1 };
    text += char;
  }
  return undefined;
}

/** An escaped delimiter in a regex stands for itself; `/` needs its escape kept for the translator. */
function literalFor(char: string): string {
  return char === '/' ? '\\/' : char;
}

function parseReplacement(text: string, groups: number): ReplacementPart[] | undefined {
  const parts: ReplacementPart[] = [];
  let buffer = '';
  const flush = () => {
    if (buffer !== '') parts.push({ kind: 'text', text: buffer });
    buffer = '';
  };
  const chars = [...text];
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] as string;
    if (char === '&') {
      flush();
      parts.push({ kind: 'group', index: 0 });
      continue;
    }
    if (char !== '\\') {
      buffer += char;
      continue;
    }
    const next = chars[++index];
    if (next === undefined) return undefined;
    if (/[0-9]/.test(next)) {
      const group = Number(next);
      if (group > groups) return undefined; // sed rejects the script: "invalid reference"
      flush();
      parts.push({ kind: 'group', index: group });
    } else if (next === 'n' || next === '\n') buffer += '\n';
    else if (next === 't') buffer += '\t';
    else if (next === '&' || next === '\\') buffer += next;
    else if (!/[A-Za-z0-9]/.test(next)) buffer += next;
    else return undefined; // \U, \L, \u, \l, \E and other GNU escapes
  }
  flush();
  return parts;
}

/** Runs one `s` command on a pattern space; returns the new text and whether it replaced anything. */
export function substitute(space: string, command: SedSubstitution): { text: string; replaced: boolean } {
  const { regex } = command;
  let out = '';
  let position = 0;
  let previousEnd = -1;
  let count = 0;
  let replaced = false;
  while (position <= space.length) {
    regex.lastIndex = position;
    const match = regex.exec(space);
    if (!match) break;
    const start = match.index;
    const end = start + match[0].length;
    if (start === end && start === previousEnd) {
      // sed never matches the empty string right where the previous match ended.
      if (start >= space.length) break;
      const step = codePointLength(space, start);
      out += space.slice(position, start + step);
      position = start + step;
      continue;
    }
    count += 1;
    out += space.slice(position, start);
    if (count >= command.occurrence) {
      out += expand(command.replacement, match);
      replaced = true;
    } else {
      out += match[0];
    }
    previousEnd = end;
    if (start === end) {
      if (start >= space.length) {
        position = space.length + 1;
        break;
      }
      const step = codePointLength(space, start);
      out += space.slice(start, start + step);
      position = start + step;
    } else {
      position = end;
    }
    if (replaced && !command.global) break;
  }
  if (position <= space.length) out += space.slice(position);
  return { text: out, replaced };
}

function codePointLength(text: string, index: number): number {
  const code = text.codePointAt(index) ?? 0;
  return code > 0xffff ? 2 : 1;
}

function expand(parts: ReplacementPart[], match: RegExpExecArray): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : (match[part.index] ?? ''))).join('');
}

/** Applies a program to a whole file's text, as `sed -i` would write it. */
export function runSedProgram(content: string, program: SedProgram): string {
  if (content === '') return '';
  const hasFinalNewline = content.endsWith('\n');
  const lines = (hasFinalNewline ? content.slice(0, -1) : content).split('\n');
  const output: string[] = [];
  // sed ends every written line with a newline, except a line read without one (the last line of a
  // file that lacks a final newline); between two writes there is always exactly one newline.
  let lastHadNewline = true;
  lines.forEach((line, lineIndex) => {
    const isLast = lineIndex === lines.length - 1;
    const hadNewline = !isLast || hasFinalNewline;
    let space = line;
    for (const command of program.commands) {
      if (!addressMatches(command.address, space, lineIndex + 1, isLast)) continue;
      const result = substitute(space, command);
      space = result.text;
      if (result.replaced && command.print) {
        output.push(space);
        lastHadNewline = hadNewline;
      }
    }
    if (!program.quiet) {
      output.push(space);
      lastHadNewline = hadNewline;
    }
  });
  if (output.length === 0) return '';
  return output.join('\n') + (lastHadNewline ? '\n' : '');
}

function addressMatches(address: SedAddress, space: string, line: number, isLast: boolean): boolean {
  switch (address.kind) {
    case 'all':
      return true;
    case 'line':
      return address.line === line;
    case 'last':
      return isLast;
    case 'regex':
      address.regex.lastIndex = 0;
      return address.regex.test(space);
  }
}
