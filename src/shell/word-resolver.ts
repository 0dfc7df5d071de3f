import type { SyntaxNode } from './syntax-node.ts';
import { checkArithmeticExpansion } from './arithmetic.ts';
import { listedPathsWord } from './path-listers.ts';
import {
  type ArgKind,
  commandSubstitutionPlaceholder,
  processSubstitutionPlaceholder,
  trackedVariablePlaceholder,
} from './types.ts';
import { tooComplex } from './walk-errors.ts';

/** A word after quote removal, with how much of it is known statically. */
export interface ResolvedWord {
  text: string;
  kind: ArgKind;
  /** The characters that were outside quotes (escaped ones replaced by `_`), for expansion checks. */
  unquoted: string;
}

/** Callbacks the resolver needs from the walker. */
export interface WordHost {
  /**
   * Analyses the body of `$(…)`, backticks, `<(…)` or `>(…)`. Returns the directory whose paths the
   * body lists when it is a path lister (path-listers.ts), else nothing.
   */
  substitution(node: SyntaxNode): string | undefined;
  /** True for variables assigned earlier in this command line. */
  isTracked(name: string): boolean;
  /** Counts nodes against the budget. */
  tick(node: SyntaxNode): void;
}

const rank: Record<ArgKind, number> = { literal: 0, glob: 1, dynamic: 2 };

function combine(left: ArgKind, right: ArgKind): ArgKind {
  return rank[left] >= rank[right] ? left : right;
}

const blank = /[ \t\n]/;
const globCharacter = /[*?[]/;

/** Removes backslash escapes from an unquoted word the way bash does; marks unquoted glob characters. */
function unquotedWord(raw: string): ResolvedWord {
  // Without a backslash the word is its own text; only blanks and glob characters matter.
  if (!raw.includes('\\')) {
    if (blank.test(raw)) tooComplex('the parser read blanks inside a word; quote the argument', 'word');
    return { text: raw, kind: globCharacter.test(raw) ? 'glob' : 'literal', unquoted: raw };
  }
  let text = '';
  let unquoted = '';
  let kind: ArgKind = 'literal';
  for (let index = 0; index < raw.length; index++) {
    const char = raw[index] ?? '';
    if (char === '\\') {
      const next = raw[index + 1];
      index++;
      if (next === undefined || next === '\n') continue;
      text += next;
      unquoted += '_';
      continue;
    }
    if (char === '*' || char === '?' || char === '[') kind = 'glob';
    if (char === ' ' || char === '\t' || char === '\n') {
      // Unquoted blanks split words in bash; the grammar kept them inside one.
      tooComplex('the parser read blanks inside a word; quote the argument', 'word');
    }
    text += char;
    unquoted += char;
  }
  return { text, kind, unquoted };
}

/** Removes the backslashes bash removes inside double quotes. */
function doubleQuotedContent(raw: string): string {
  return raw.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === '\n' ? '' : char));
}

const specialVariables = /^(?:[0-9]|[?#$!*@_-])$/;

function variableText(node: SyntaxNode, host: WordHost): ResolvedWord {
  const name = node.namedChildren[0];
  if (
    !name ||
    node.namedChildCount !== 1 ||
    !['variable_name', 'special_variable_name'].includes(name.type)
  ) {
    tooComplex(`the expansion ${node.text} is not a plain variable`, node.type);
  }
  const variable = name.text;
  if (variable === 'IFS') tooComplex('the command expands $IFS, which changes how words split', node.type);
  if (node.type === 'expansion') {
    const tokens = node.children.map((child) => child.type);
    if (tokens.length !== 3 || tokens[0] !== '${' || tokens[2] !== '}') {
      tooComplex(`the expansion ${node.text} uses an operator; use a plain "\${NAME}"`, node.type);
    }
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable) && !specialVariables.test(variable)) {
    tooComplex(`the expansion ${node.text} is not a plain variable`, node.type);
  }
  const text = host.isTracked(variable) ? trackedVariablePlaceholder : node.text;
  return { text, kind: 'dynamic', unquoted: '' };
}

function doubleQuoted(node: SyntaxNode, host: WordHost): ResolvedWord {
  let text = '';
  let kind: ArgKind = 'literal';
  const source = node.text;
  let previousEnd = node.startIndex;
  for (const child of node.children) {
    host.tick(child);
    // The grammar skips blanks and newlines between parts of a string; inside quotes they are content.
    if (child.startIndex > previousEnd) {
      text += doubleQuotedContent(
        source.slice(previousEnd - node.startIndex, child.startIndex - node.startIndex),
      );
    }
    previousEnd = Math.max(previousEnd, child.endIndex);
    switch (child.type) {
      case '"':
        // The closing quote token can carry the blanks before it ("  " has no content node).
        text += doubleQuotedContent(child.text.slice(0, -1));
        break;
      case 'string_content':
        text += doubleQuotedContent(child.text);
        break;
      case 'simple_expansion':
      case 'expansion':
        text += variableText(child, host).text;
        kind = 'dynamic';
        break;
      case 'command_substitution':
        host.substitution(child);
        text += commandSubstitutionPlaceholder;
        kind = 'dynamic';
        break;
      case 'arithmetic_expansion':
        text += arithmeticText(child, host);
        kind = 'dynamic';
        break;
      default:
        tooComplex(`${child.type} inside double quotes is not supported`, child.type);
    }
  }
  return { text, kind, unquoted: '' };
}

/**
 * `$(( … ))` with fixed operands only (see arithmetic.ts). Its value is a number known when the
 * command runs; the text stays as written, which marks the word as runtime-valued.
 */
function arithmeticText(node: SyntaxNode, host: WordHost): string {
  checkArithmeticExpansion(node, (child) => host.tick(child));
  return node.text;
}

/** Resolves one argument node to its final text, or abandons analysis for anything not understood. */
export function resolveWord(node: SyntaxNode, host: WordHost, whole = true): ResolvedWord {
  host.tick(node);
  switch (node.type) {
    case 'word':
      if (node.childCount > 0) tooComplex('a word with unexpected structure', node.type);
      return unquotedWord(node.text);
    case 'number':
      if (node.childCount > 0) tooComplex(`the number ${node.text} contains an expansion`, node.type);
      return { text: node.text, kind: 'literal', unquoted: node.text };
    case 'raw_string':
      return { text: node.text.slice(1, -1), kind: 'literal', unquoted: '' };
    case 'string':
      return doubleQuoted(node, host);
    case 'simple_expansion':
    case 'expansion': {
      const resolved = variableText(node, host);
      return { ...resolved, unquoted: '' };
    }
    case 'command_substitution': {
      const listed = host.substitution(node);
      // A whole unquoted word of listed paths is judged like a glob below the lister's directory.
      if (listed !== undefined && whole) return { text: listedPathsWord(listed), kind: 'glob', unquoted: '' };
      return { text: commandSubstitutionPlaceholder, kind: 'dynamic', unquoted: '' };
    }
    case 'arithmetic_expansion':
      return { text: arithmeticText(node, host), kind: 'dynamic', unquoted: '' };
    case 'process_substitution':
      host.substitution(node);
      return { text: processSubstitutionPlaceholder, kind: 'literal', unquoted: '' };
    case 'concatenation': {
      let text = '';
      let unquoted = '';
      let kind: ArgKind = 'literal';
      for (const part of node.children) {
        const resolved = resolveWord(part, host, false);
        text += resolved.text;
        unquoted += resolved.unquoted;
        kind = combine(kind, resolved.kind);
      }
      return { text, kind, unquoted };
    }
    case 'ansi_c_string':
      return tooComplex(
        `ANSI-C quoting (${node.text.slice(0, 20)}) is not analysed; use plain quotes`,
        node.type,
      );
    default:
      return tooComplex(`${node.type} (${node.text.slice(0, 30)}) is not supported in a word`, node.type);
  }
}

/**
 * Expansion checks on a whole resolved word: brace expansion, zsh `=cmd` and `~[…]`, and
 * directory-stack tildes, all of which change the word in ways the resolved text does not show.
 */
export function checkExpansions(word: ResolvedWord, node: SyntaxNode): void {
  const unquoted = word.unquoted;
  if (unquoted.includes('{') && (unquoted.includes(',') || unquoted.includes('..'))) {
    tooComplex(
      `brace expansion in ${node.text.slice(0, 40)} is not analysed; list the words explicitly`,
      node.type,
    );
  }
  const first = node.type === 'concatenation' ? node.children[0] : node;
  const startsUnquoted = first?.type === 'word';
  if (!startsUnquoted) return;
  if (/^=./.test(unquoted))
    tooComplex('a word starting with "=" is expanded by zsh to a program path', node.type);
  if (/^~[^/A-Za-z_.]/.test(unquoted)) {
    tooComplex(`the tilde form ${node.text.slice(0, 20)} is not analysed`, node.type);
  }
}
