/**
 * Translates a GNU sed regular expression (BRE, or ERE with -E/-r) into a JavaScript RegExp source.
 * Only the subset whose matching is identical in both engines is accepted; anything else returns
 * undefined, and the caller then shows no preview rather than a preview that could differ from sed.
 * Rejected on purpose: alternation and quantified groups (POSIX picks the longest match, JavaScript
 * the first), backslashes inside brackets, collating elements, and unknown escapes.
 */

const posixClasses: Record<string, string> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: '0-9a-zA-Z',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\n\\r\\f\\v',
  blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~',
  print: ' -~',
  graph: '!-~',
  cntrl: '\\x00-\\x1f\\x7f',
  xdigit: '0-9A-Fa-f',
};

const escapedLiterals = new Set(['.', '*', '[', ']', '^', '$', '\\', '/']);
const jsSyntax = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

/** A JavaScript-safe literal for one character. */
function literal(char: string): string {
  return jsSyntax.has(char) ? `\\${char}` : char;
}

/** The translated source and how many capture groups it has. */
export interface TranslatedRegex {
  source: string;
  groups: number;
}

/** Translates `pattern`; undefined when it is outside the supported subset. */
export function translateSedRegex(pattern: string, extended: boolean): TranslatedRegex | undefined {
  if (pattern === '') return undefined; // "the last regex used": state we do not track
  let out = '';
  let groups = 0;
  let depth = 0;
  // What the previous emitted token was, to decide whether a quantifier is allowed after it.
  let previous: 'start' | 'atom' | 'group-open' | 'group-close' | 'quantifier' | 'anchor' = 'start';
  let index = 0;
  const chars = [...pattern];

  const quantifier = (text: string): boolean => {
    if (previous === 'group-close' || previous === 'quantifier') return false;
    if (previous === 'start' || previous === 'group-open' || previous === 'anchor') {
      return false; // a leading `*` is literal in BRE and undefined in ERE: not worth the risk
    }
    out += text;
    previous = 'quantifier';
    return true;
  };

  const interval = (): boolean => {
    // chars[index] is just after the opening brace; read `m`, `m,`, `m,n` or `,n` up to the close.
    let body = '';
    while (index < chars.length && /[0-9,]/.test(chars[index] ?? '')) body += chars[index++];
    const close = extended ? chars[index] === '}' : chars[index] === '\\' && chars[index + 1] === '}';
    if (!close || !/^(\d+|\d+,|\d+,\d+|,\d+)$/.test(body)) return false;
    index += extended ? 1 : 2;
    return quantifier(`{${body.startsWith(',') ? `0${body}` : body}}`);
  };

  while (index < chars.length) {
    const char = chars[index] as string;
    const atStart = previous === 'start' || previous === 'group-open';
    if (char === '\\') {
      const next = chars[index + 1];
      index += 2;
      if (next === undefined) return undefined;
      if (!extended && next === '(') {
        out += '(';
        groups += 1;
        depth += 1;
        previous = 'group-open';
      } else if (!extended && next === ')') {
        if (depth === 0) return undefined;
        out += ')';
        depth -= 1;
        previous = 'group-close';
      } else if (!extended && (next === '+' || next === '?')) {
        if (!quantifier(next)) return undefined;
      } else if (!extended && next === '{') {
        if (!interval()) return undefined;
      } else if (next === '|') {
        if (extended) {
          out += '\\|';
          previous = 'atom';
        } else return undefined; // alternation
      } else if (extended && '(){}+?'.includes(next)) {
        out += `\\${next}`;
        previous = 'atom';
      } else if (escapedLiterals.has(next)) {
        out += literal(next);
        previous = 'atom';
      } else if (next === 'n') {
        out += '\\n';
        previous = 'atom';
      } else if (next === 't') {
        out += '\\t';
        previous = 'atom';
      } else if ('wWsS'.includes(next)) {
        out += `\\${next}`;
        previous = 'atom';
      } else if (next === 'b' || next === 'B') {
        out += `\\${next}`;
        previous = 'anchor';
      } else if (next === '<') {
        out += '\\b(?=\\w)';
        previous = 'anchor';
      } else if (next === '>') {
        out += '\\b(?<=\\w)';
        previous = 'anchor';
      } else if (next === '`') {
        out += '^';
        previous = 'anchor';
      } else if (next === "'") {
        out += '$';
        previous = 'anchor';
      } else if (/[1-9]/.test(next)) {
        if (Number(next) > groups) return undefined;
        out += `\\${next}`;
        previous = 'atom';
      } else return undefined;
      continue;
    }
    index += 1;
    if (char === '[') {
      const bracket = readBracket(chars, index);
      if (!bracket) return undefined;
      out += bracket.source;
      index = bracket.end;
      previous = 'atom';
    } else if (char === '.') {
      out += '.';
      previous = 'atom';
    } else if (char === '*') {
      if (!quantifier('*')) return undefined;
    } else if (char === '^') {
      if (extended || atStart) {
        out += '^';
        previous = 'anchor';
      } else {
        out += '\\^';
        previous = 'atom';
      }
    } else if (char === '$') {
      const atEnd =
        index === chars.length || (!extended && chars[index] === '\\' && chars[index + 1] === ')');
      if (extended || atEnd) {
        if (extended && !atEnd && !(chars[index] === ')')) return undefined; // `a$b`: never matches in ERE
        out += '$';
        previous = 'anchor';
      } else {
        out += '\\$';
        previous = 'atom';
      }
    } else if (extended && char === '(') {
      out += '(';
      groups += 1;
      depth += 1;
      previous = 'group-open';
    } else if (extended && char === ')') {
      if (depth === 0) return undefined;
      out += ')';
      depth -= 1;
      previous = 'group-close';
    } else if (extended && (char === '+' || char === '?')) {
      if (!quantifier(char)) return undefined;
    } else if (extended && char === '{') {
      if (!interval()) return undefined;
    } else if (extended && char === '|') {
      return undefined; // alternation
    } else {
      out += literal(char);
      previous = 'atom';
    }
  }
  if (depth !== 0) return undefined;
  return { source: out, groups };
}

/** Reads a bracket expression starting just after `[`; returns its JS source and where it ends. */
function readBracket(chars: string[], start: number): { source: string; end: number } | undefined {
  let index = start;
  let negate = false;
  if (chars[index] === '^') {
    negate = true;
    index += 1;
  }
  let body = '';
  let first = true;
  while (index < chars.length) {
    const char = chars[index] as string;
    if (char === ']' && !first) {
      if (body === '') return undefined;
      return { source: `[${negate ? '^' : ''}${body}]`, end: index + 1 };
    }
    first = false;
    if (char === '\\') return undefined; // literal in POSIX, an escape in JS: too easy to get wrong
    if (char === '[') {
      const kind = chars[index + 1];
      if (kind === '.' || kind === '=') return undefined;
      if (kind === ':') {
        const close = chars.indexOf(':', index + 2);
        if (close < 0 || chars[close + 1] !== ']') return undefined;
        const name = chars.slice(index + 2, close).join('');
        const mapped = posixClasses[name];
        if (mapped === undefined) return undefined;
        body += mapped;
        index = close + 2;
        continue;
      }
      body += '\\[';
    } else if (char === ']') {
      body += '\\]';
    } else if (char === '^') {
      body += '\\^';
    } else {
      body += char;
    }
    index += 1;
  }
  return undefined;
}
