import type { SyntaxNode } from './syntax-node.ts';
import { tooComplex } from './walk-errors.ts';

/**
 * Heredocs as bash reads them. tree-sitter's reading of heredoc bodies is not bash's: it misses
 * line continuations (`EO\<newline>F` ends a body in bash, `x\<newline>EOF` does not), it reads
 * `$((…))` as a substitution and stumbles on `\$`. So bash's view is computed here from the text,
 * with a small lexer that knows only what decides where heredocs are (quotes, substitutions,
 * comments, token newlines), and tree-sitter is only trusted where both agree:
 *
 * 1. {@link planHeredocs} finds each `<<`/`<<-` operator, its delimiter after quote removal, and the
 *    body bash reads (lines after the next token newline up to the delimiter line, with
 *    backslash-newline joined in unquoted bodies and leading tabs stripped for `<<-`).
 * 2. The bodies are blanked (same length, newlines kept) before tree-sitter parses the line, so the
 *    grammar never reads body text, and {@link verifyHeredocs} checks that tree-sitter found the
 *    same operators, delimiter words, body starts and terminator lines.
 * 3. An unquoted body is expanded by bash like a double-quoted string: {@link planHeredocs} lists
 *    the `$(…)` and backtick bodies in bash's body text, and the walker analyses each as a command
 *    line of its own (recursively, heredocs included).
 *
 * Anything the lexer does not model (`$((…))` or `${…}` with operators in a body, a delimiter with
 * `$` or blanks, a terminator spelled with a line continuation, an unterminated heredoc, a newline
 * inside backticks while a body is pending, `case` inside a substitution, …) is too-complex.
 */

/** One heredoc, as bash reads it. Positions index the text given to {@link planHeredocs}. */
export interface HeredocSpan {
  /** Index of `<<` / `<<-`. */
  operatorStart: number;
  operator: '<<' | '<<-';
  /** The delimiter word as written (`'EOF'`, `E"O"F`, `\EOF`). */
  word: string;
  wordStart: number;
  wordEnd: number;
  /** The delimiter after quote removal: the line bash compares against. */
  delimiter: string;
  /** True when any part of the word is quoted: the body is then not expanded. */
  quoted: boolean;
  /** Where the body's first line starts. */
  bodyStart: number;
  /** Where the terminator line starts (its leading tabs included). */
  terminatorLineStart: number;
  /** Where the delimiter text on the terminator line starts (after tabs stripped by `<<-`). */
  terminatorStart: number;
  terminatorEnd: number;
  /** The text bash feeds to the command before expansion (continuations joined, tabs stripped). */
  body: string;
  /** False when bash expands something in the body, so its final text is unknown. */
  literal: boolean;
  /** Bodies of `$(…)` and backticks in an unquoted body, in order: code bash runs. */
  substitutions: string[];
}

/** Everything the walker needs about the heredocs of one source text. */
export interface HeredocPlan {
  heredocs: HeredocSpan[];
  /** The source with every body character but newlines replaced by `~` (which no delimiter uses), for tree-sitter. */
  masked: string;
}

/** Characters a delimiter may use; anything else (`$`, blanks, backticks, globs, braces) is too-complex. */
const delimiterCharacter = /[A-Za-z0-9_.,:+=%@/-]/;
/** Characters that end a word in bash. */
const metaCharacter = /[ \t\n|&;()<>]/;

type ContextKind = 'top' | 'paren' | 'arith' | 'bracket' | 'dq' | 'bt' | 'brace';

interface Context {
  kind: ContextKind;
  /** Parentheses opened inside `$((…))`. */
  depth: number;
}

interface Pending {
  span: Omit<
    HeredocSpan,
    | 'bodyStart'
    | 'terminatorLineStart'
    | 'terminatorStart'
    | 'terminatorEnd'
    | 'body'
    | 'literal'
    | 'substitutions'
  >;
  context: Context;
}

/** True when heredoc operators could appear in `text` at all (the common case skips the lexer). */
export function mayContainHeredoc(text: string): boolean {
  return text.includes('<<') || /<(?:\\\n)+</.test(text);
}

/**
 * Finds every heredoc bash would read in `text` and what each body is, or returns undefined when
 * there is none. Throws too-complex for any shape it does not model.
 */
export function planHeredocs(text: string): HeredocPlan | undefined {
  if (!mayContainHeredoc(text)) return undefined;
  if (/<(?:\\\n)+</.test(text))
    tooComplex('a line continuation splits a "<<" operator; write it in one piece');
  const heredocs: HeredocSpan[] = [];
  const end = scan(text, 0, 'top', heredocs);
  if (end !== text.length) tooComplex('unexpected ")" in a command with a heredoc');
  if (heredocs.length === 0) return undefined;
  const chars = text.split('');
  for (const span of heredocs) {
    for (let index = span.bodyStart; index < span.terminatorLineStart; index++) {
      if (chars[index] !== '\n') chars[index] = '~';
    }
  }
  return { heredocs, masked: chars.join('') };
}

/**
 * Lexes `text` from `start` the way bash's parser finds token boundaries, collecting heredocs and
 * reading their bodies at each token newline. With `initial = 'paren'` it stops at the `)` that
 * closes a `$(` and returns its index; with `top` it returns `text.length`.
 */
function scan(text: string, start: number, initial: 'top' | 'paren', out: HeredocSpan[]): number {
  const stack: Context[] = [{ kind: initial, depth: 0 }];
  let pending: Pending[] = [];
  let index = start;
  const push = (kind: ContextKind, width: number): void => {
    stack.push({ kind, depth: 0 });
    index += width;
  };
  const pop = (width: number): boolean => {
    const closing = stack.pop();
    if (pending.some((item) => item.context === closing)) {
      tooComplex('a heredoc is closed inside its substitution before its body; put the body inside');
    }
    index += width;
    return stack.length === 0;
  };
  /** `$` followed by `(`, `{`, `[`, `'` or `"`: returns true when it opened something. */
  const dollar = (inDoubleQuotes: boolean): void => {
    const next = text[index + 1];
    if (next === '(') {
      if (text[index + 2] === '(') push('arith', 3);
      else push('paren', 2);
    } else if (next === '{') push('brace', 2);
    else if (next === '[') push('bracket', 2);
    else if (next === "'" && !inDoubleQuotes) index = skipAnsiC(text, index + 2);
    else if (next === '"' && !inDoubleQuotes) push('dq', 2);
    else index++;
  };
  while (index < text.length) {
    const context = stack[stack.length - 1] as Context;
    const char = text[index] ?? '';
    switch (context.kind) {
      case 'top':
      case 'paren':
        if (char === '\\') index += 2;
        else if (char === "'") index = skipSingleQuoted(text, index + 1);
        else if (char === '"') push('dq', 1);
        else if (char === '`') push('bt', 1);
        else if (char === '$') dollar(false);
        else if (char === '(') {
          if (text[index + 1] === '(') push('arith', 2);
          else push('paren', 1);
        } else if (char === ')') {
          if (context.kind !== 'paren') tooComplex('unexpected ")" in a command with a heredoc');
          if (pop(1)) return index - 1;
        } else if (char === '#' && (index === 0 || /[ \t\n;&|()<>]/.test(text[index - 1] ?? ''))) {
          const newline = text.indexOf('\n', index);
          index = newline === -1 ? text.length : newline;
        } else if (char === '<' && text.startsWith('<<<', index)) index += 3;
        else if (char === '<' && text[index + 1] === '<') {
          const found = heredocOperator(text, index);
          pending.push({ span: found, context });
          index = found.wordEnd;
        } else if (char === '\n') {
          index++;
          if (pending.length > 0) {
            if (pending.some((item) => item.context !== context)) {
              tooComplex(
                'a heredoc body would start inside a nested command; put the heredoc on its own line',
              );
            }
            for (const item of pending) {
              const span = readBody(text, index, item.span);
              out.push(span);
              index = nextLine(text, span.terminatorEnd);
            }
            pending = [];
          }
        } else index++;
        break;
      case 'dq':
        if (char === '\\') index += 2;
        else if (char === '"') pop(1);
        else if (char === '`') push('bt', 1);
        else if (char === '$') dollar(true);
        else index++;
        break;
      case 'bt':
        if (char === '\\') index += 2;
        else if (char === '`') pop(1);
        else if (char === '\n' && pending.length > 0) {
          tooComplex('a line break inside backticks while a heredoc is pending is not analysed; use $( )');
        } else index++;
        break;
      case 'brace':
        if (char === '\\') index += 2;
        else if (char === '}') pop(1);
        else if (char === '"') push('dq', 1);
        else if (char === '`') push('bt', 1);
        else if (char === '$') dollar(false);
        else if (char === "'")
          tooComplex(`quotes inside a \${…} expansion next to a heredoc are not analysed`);
        else index++;
        break;
      case 'arith':
      case 'bracket':
        if (char === '\\') index += 2;
        else if (char === '"') push('dq', 1);
        else if (char === '`') push('bt', 1);
        else if (char === '$') dollar(false);
        else if (char === "'") tooComplex('quotes inside arithmetic next to a heredoc are not analysed');
        else if (context.kind === 'bracket' && char === ']') pop(1);
        else if (context.kind === 'arith' && char === '(') {
          context.depth++;
          index++;
        } else if (context.kind === 'arith' && char === ')') {
          if (context.depth > 0) {
            context.depth--;
            index++;
          } else if (text[index + 1] === ')') pop(2);
          else tooComplex('unbalanced parentheses in arithmetic next to a heredoc');
        } else index++;
        break;
    }
  }
  if (pending.length > 0) tooComplex('the heredoc has no body; end the line after the heredoc operator');
  if (stack.length > 1 || initial === 'paren') {
    tooComplex('an unterminated quote or substitution in a command with a heredoc');
  }
  return text.length;
}

function skipSingleQuoted(text: string, from: number): number {
  const close = text.indexOf("'", from);
  if (close === -1) tooComplex('an unterminated single quote in a command with a heredoc');
  return close + 1;
}

function skipAnsiC(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === "'") return index + 1;
  }
  return tooComplex("an unterminated $'…' in a command with a heredoc");
}

function nextLine(text: string, from: number): number {
  return text[from] === '\n' ? from + 1 : from;
}

/** Reads `<<WORD` / `<<-WORD` at `index` and computes the delimiter as bash does (quote removal). */
function heredocOperator(text: string, index: number): Pending['span'] {
  const operator = text[index + 2] === '-' ? '<<-' : '<<';
  let position = index + operator.length;
  while (text[position] === ' ' || text[position] === '\t') position++;
  const wordStart = position;
  let delimiter = '';
  let quoted = false;
  const unsupported = (): never =>
    tooComplex(
      `the heredoc delimiter ${JSON.stringify(text.slice(wordStart, position + 1))} is not a plain word; use letters, digits and _ with optional quotes`,
    );
  while (position < text.length && !metaCharacter.test(text[position] ?? '')) {
    const char = text[position] ?? '';
    if (char === "'" || char === '"') {
      quoted = true;
      const close = text.indexOf(char, position + 1);
      if (close === -1) unsupported();
      const inner = text.slice(position + 1, close);
      if (![...inner].every((item) => delimiterCharacter.test(item))) unsupported();
      delimiter += inner;
      position = close + 1;
    } else if (char === '\\') {
      quoted = true;
      const next = text[position + 1] ?? '';
      if (!delimiterCharacter.test(next)) unsupported();
      delimiter += next;
      position += 2;
    } else if (delimiterCharacter.test(char)) {
      delimiter += char;
      position++;
    } else unsupported();
  }
  if (delimiter === '') unsupported();
  return {
    operatorStart: index,
    operator,
    word: text.slice(wordStart, position),
    wordStart,
    wordEnd: position,
    delimiter,
    quoted,
  };
}

/** Reads body lines from `start` until the delimiter line, as bash's here-document reader does. */
function readBody(text: string, start: number, head: Pending['span']): HeredocSpan {
  let body = '';
  let position = start;
  while (position < text.length) {
    const lineStart = position;
    let line = '';
    let joined = false;
    while (position < text.length && text[position] !== '\n') {
      const char = text[position] ?? '';
      if (char === '\\' && !head.quoted) {
        if (text[position + 1] === '\n') {
          joined = true;
          position += 2;
          continue;
        }
        // A backslash protects the next character, so `\\<newline>` ends the line.
        line += char;
        position++;
        if (position < text.length && text[position] !== '\n') {
          line += text[position];
          position++;
        }
        continue;
      }
      line += char;
      position++;
    }
    const hasNewline = position < text.length;
    const stripped = head.operator === '<<-' ? line.replace(/^\t+/, '') : line;
    if (stripped === head.delimiter) {
      if (joined) {
        tooComplex('the heredoc terminator is spelled with a line continuation; write it on one line');
      }
      const terminatorStart = lineStart + (line.length - stripped.length);
      return finish(head, {
        bodyStart: start,
        terminatorLineStart: lineStart,
        terminatorStart,
        terminatorEnd: terminatorStart + head.delimiter.length,
        body,
      });
    }
    body += stripped + (hasNewline ? '\n' : '');
    if (hasNewline) position++;
  }
  return tooComplex(
    `the heredoc has no terminator line ${JSON.stringify(head.delimiter)}; bash would read to the end of the command`,
  );
}

function finish(
  head: Pending['span'],
  found: Pick<
    HeredocSpan,
    'bodyStart' | 'terminatorLineStart' | 'terminatorStart' | 'terminatorEnd' | 'body'
  >,
): HeredocSpan {
  const substitutions = head.quoted ? [] : bodySubstitutions(found.body);
  const literal = head.quoted || !/[$`\\]/.test(found.body);
  return { ...head, ...found, literal, substitutions };
}

const plainBraceVariable = /^\$\{(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]|[?#$!*@_-])\}/;

/**
 * The code in an unquoted body, which bash expands like a double-quoted string (except that `"`
 * is plain text): `\` protects `$`, `` ` `` and `\`; `$(…)` and backticks run commands; `${…}`
 * with operators, `$((…))` and `$[…]` can run commands through subscripts and are too-complex.
 */
export function bodySubstitutions(body: string): string[] {
  const found: string[] = [];
  let index = 0;
  while (index < body.length) {
    const char = body[index];
    const next = body[index + 1];
    if (char === '\\') {
      index += next !== undefined && '$`\\\n'.includes(next) ? 2 : 1;
    } else if (char === '`') {
      let close = index + 1;
      while (close < body.length && body[close] !== '`') close += body[close] === '\\' ? 2 : 1;
      if (close >= body.length) tooComplex('an unterminated backtick in a heredoc body');
      const inner = body.slice(index + 1, close);
      if (inner.includes('\\')) {
        tooComplex('backslashes inside backticks in a heredoc are read differently by bash; use $( )');
      }
      found.push(inner);
      index = close + 1;
    } else if (char === '$' && next === '(') {
      if (body[index + 2] === '(') {
        tooComplex("arithmetic $((…)) in a heredoc body is not analysed; quote the delimiter (<<'EOF')");
      }
      const close = scan(body, index + 2, 'paren', []);
      found.push(body.slice(index + 2, close));
      index = close + 1;
    } else if (char === '$' && next === '{') {
      const match = plainBraceVariable.exec(body.slice(index, index + 200));
      if (!match) {
        tooComplex(`\${…} with an operator in a heredoc body is not analysed; quote the delimiter (<<'EOF')`);
      }
      index += match[0].length;
    } else if (char === '$' && next === '[') {
      tooComplex("arithmetic $[…] in a heredoc body is not analysed; quote the delimiter (<<'EOF')");
    } else index++;
  }
  return found;
}

/**
 * Checks that tree-sitter, parsing the masked text, found exactly the heredocs bash reads: the same
 * operators, delimiter words, body starts and terminator lines. Returns the spans by operator index.
 */
export function verifyHeredocs(root: SyntaxNode, plan: HeredocPlan | undefined): Map<number, HeredocSpan> {
  const byOperator = new Map<number, HeredocSpan>();
  for (const span of plan?.heredocs ?? []) byOperator.set(span.operatorStart, span);
  const seen = new Set<number>();
  const visit = (node: SyntaxNode): void => {
    if (node.type === 'heredoc_redirect' && !matchesSpan(node, byOperator, seen)) {
      tooComplex('the parser and bash disagree about where a heredoc starts or ends; simplify the heredoc');
    }
    if (node.type === 'heredoc_body') return;
    for (const child of node.children) visit(child);
  };
  visit(root);
  if (seen.size !== byOperator.size) {
    tooComplex('the parser did not find a heredoc bash would read; simplify the heredoc');
  }
  return byOperator;
}

function matchesSpan(node: SyntaxNode, byOperator: Map<number, HeredocSpan>, seen: Set<number>): boolean {
  const operator = node.children.find((child) => child.type === '<<' || child.type === '<<-');
  const span = operator ? byOperator.get(operator.startIndex) : undefined;
  if (!operator || !span || operator.type !== span.operator || seen.has(span.operatorStart)) return false;
  seen.add(span.operatorStart);
  let started = false;
  let ended = false;
  for (const child of node.children) {
    if (child.type === 'heredoc_start') {
      if (child.startIndex !== span.wordStart || child.endIndex !== span.wordEnd) return false;
      started = true;
    } else if (child.type === 'heredoc_body' && child.endIndex > child.startIndex) {
      if (child.startIndex !== span.bodyStart) return false;
      if (child.endIndex < span.terminatorLineStart || child.endIndex > span.terminatorStart) return false;
    } else if (child.type === 'heredoc_end') {
      if (child.startIndex !== span.terminatorStart) return false;
      if (child.endIndex !== span.terminatorEnd && child.endIndex !== span.terminatorEnd + 1) return false;
      ended = true;
    }
  }
  return started && ended;
}
