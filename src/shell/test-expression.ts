import type { SyntaxNode } from './syntax-node.ts';
import { checkArithmeticExpansion, isFixedArithmeticOperand } from './arithmetic.ts';
import type { ArgKind } from './types.ts';
import { tooComplex } from './walk-errors.ts';
import { checkExpansions, type ResolvedWord, resolveWord, type WordHost } from './word-resolver.ts';
import { unwrapCommandDetailed } from './wrappers.ts';

/**
 * Test expressions (`[ … ]`, `test …`, `[[ … ]]`) reduced to the words bash evaluates, accepted
 * only when no operand can make bash run code:
 *
 * - `-v NAME` evaluates an array subscript in NAME (`-v 'a[$(cmd)]'` runs cmd), so its operand must
 *   be a literal plain name.
 * - In `[ ]` and `test` every argument is an ordinary word: an unquoted variable or glob can expand
 *   to several words, or to an operator (`-v`), so non-literal words must be quoted, and two
 *   non-literal words never stand side by side (a value `-v` followed by a value `a[$(cmd)]`).
 *   `<` and `>` there are redirections, not comparisons.
 * - In `[[ ]]` words are not split, but `-eq`, `-ne`, `-lt`, `-le`, `-gt`, `-ge` evaluate both
 *   operands as arithmetic, where a variable's value is code; only fixed numbers are accepted.
 * - Patterns and regular expressions (`== a*`, `=~ ^x$`) are kept only when they contain no
 *   expansion the grammar may have left unparsed.
 */

const plainName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const arithmeticOperators = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const operandTypes = new Set([
  'word',
  'string',
  'raw_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'number',
  'command_substitution',
  'arithmetic_expansion',
]);
const expressionTypes = new Set(['unary_expression', 'binary_expression', 'parenthesized_expression']);
/** Tokens `[[ ]]` may put next to a word without a blank. */
const gluingTokens = new Set(['(', ')', '&&', '||']);

interface Item {
  word: ResolvedWord;
  node: SyntaxNode;
  operator: boolean;
}

const literal = (text: string): ResolvedWord => ({ text, kind: 'literal', unquoted: text });

/** A `$` that starts an expansion, a backtick, or a process substitution. */
function hasExpansion(text: string): boolean {
  return /`|\$[A-Za-z_{(0-9@*#?!$-]|[<>]\(/.test(text);
}

function operandWord(node: SyntaxNode, host: WordHost): ResolvedWord {
  if (node.type === 'arithmetic_expansion') {
    checkArithmeticExpansion(node, (child) => host.tick(child));
    return { text: node.text, kind: 'dynamic', unquoted: '' };
  }
  const resolved = resolveWord(node, host);
  checkExpansions(resolved, node);
  return resolved;
}

function flatten(node: SyntaxNode, host: WordHost, double: boolean, into: Item[]): void {
  host.tick(node);
  if (!node.isNamed) {
    into.push({ word: literal(node.type), node, operator: true });
    return;
  }
  if (node.type === 'test_operator') {
    into.push({ word: literal(node.text), node, operator: true });
    return;
  }
  if (node.type === 'regex' || node.type === 'extglob_pattern') {
    if (!double) tooComplex(`a pattern inside [ ] is not analysed; use [[ ]]`, node.type);
    if (hasExpansion(node.text)) {
      tooComplex(
        `the pattern ${node.text.slice(0, 30)} contains an expansion; quote it or use a variable test`,
        node.type,
      );
    }
    into.push({ word: { text: node.text, kind: 'literal', unquoted: '' }, node, operator: false });
    return;
  }
  if (operandTypes.has(node.type)) {
    into.push({ word: operandWord(node, host), node, operator: false });
    return;
  }
  if (!expressionTypes.has(node.type)) {
    tooComplex(`${node.type.replaceAll('_', ' ')} inside a test is not analysed`, node.type);
  }
  const operator = node.children.find((child) => child.type === 'test_operator');
  if (double && node.type === 'binary_expression' && operator && arithmeticOperators.has(operator.text)) {
    for (const side of node.namedChildren) {
      if (side.id === operator.id) continue;
      if (!isFixedArithmeticOperand(side, (child) => host.tick(child))) {
        tooComplex(
          `[[ … ${operator.text} … ]] evaluates ${side.text.slice(0, 30)} as arithmetic, which can run commands; compare fixed numbers or use [ ]`,
          side.type,
        );
      }
    }
  }
  for (const child of node.children) flatten(child, host, double, into);
}

/** Rejects blanks the grammar invented: `[ -f"x" ]` is one word to bash. */
function checkSeparated(items: readonly Item[], double: boolean): void {
  for (let index = 1; index < items.length; index++) {
    const before = items[index - 1];
    const after = items[index];
    if (!before || !after || before.node.endIndex !== after.node.startIndex) continue;
    if (double && (gluingTokens.has(before.word.text) || gluingTokens.has(after.word.text))) continue;
    tooComplex('the parser split one test word in two; put blanks around test operators', after.node.type);
  }
}

/**
 * The rules every `[`/`test` argument list must meet (see the module comment); `single` says which
 * non-literal words are certainly one word (quoted).
 */
export function checkTestArguments(words: readonly ResolvedWord[], single: readonly boolean[]): void {
  for (let index = 0; index < words.length; index++) {
    const word = words[index];
    if (!word) continue;
    const previous = words[index - 1];
    if (word.kind !== 'literal' && !single[index]) {
      tooComplex(
        `the unquoted ${word.text.slice(0, 30)} in a test may expand to several words or an operator; quote it`,
      );
    }
    if (word.kind !== 'literal' && previous && previous.kind !== 'literal') {
      tooComplex('two run-time values side by side in a test can form an operator and its operand');
    }
    if (previous && (previous.kind !== 'literal' || previous.text === '-v')) {
      const nameLike = word.kind === 'literal' && !word.text.includes('[');
      if (!nameLike || (previous.text === '-v' && !plainName.test(word.text))) {
        tooComplex('test -v evaluates array subscripts in its operand; name a plain variable');
      }
    }
  }
}

/** The words of a `test_command` node, checked; the caller emits them as one command. */
export function testCommandWords(node: SyntaxNode, host: WordHost): ResolvedWord[] {
  const open = node.children[0];
  const close = node.children[node.children.length - 1];
  const double = open?.type === '[[';
  if (!open || !close || (double ? close.type !== ']]' : open.type !== '[' || close.type !== ']')) {
    tooComplex('unexpected test shape', node.type);
  }
  const items: Item[] = [];
  for (const child of node.children.slice(1, -1)) flatten(child, host, double, items);
  checkSeparated(items, double);
  if (double) {
    for (let index = 0; index < items.length; index++) {
      const item = items[index];
      if (item?.operator && item.word.text === '-v') {
        const operand = items[index + 1];
        if (
          !operand ||
          operand.operator ||
          operand.word.kind !== 'literal' ||
          !plainName.test(operand.word.text)
        ) {
          tooComplex('[[ -v ]] evaluates array subscripts in its operand; name a plain variable', node.type);
        }
      }
    }
  } else {
    for (const item of items) {
      if (item.operator && ['<', '>', '&&', '||', '(', ')'].includes(item.word.text)) {
        tooComplex(
          `inside [ ] the token ${item.word.text} is shell syntax (a redirection or a group), not a comparison; use [[ ]]`,
          item.node.type,
        );
      }
    }
    checkTestArguments(
      items.map((item) => item.word),
      items.map((item) => item.word.kind === 'literal' || item.node.type === 'string'),
    );
  }
  return [literal(open.type), ...items.map((item) => item.word), literal(close.type)];
}

/**
 * `test …` and `[ … ]` written as ordinary commands (also behind `command`, `builtin`, `env`): the
 * same rules, with quoting read from the syntax nodes.
 */
export function checkPlainTestCommand(nodes: readonly SyntaxNode[], words: readonly ResolvedWord[]): void {
  // Unwrapping only removes words (or puts `echo` in place of none), so the name is one of them.
  if (!words.some((word) => word.text === 'test' || word.text === '[')) return;
  const argv = words.map((word) => word.text);
  const argKinds: ArgKind[] = words.map((word) => word.kind);
  const inner = unwrapCommandDetailed({ argv, argKinds, envVars: [], redirects: [], text: '' }).command;
  const name = inner.argv[0];
  if (name !== 'test' && name !== '[') return;
  const offset = argv.length - inner.argv.length;
  if (offset < 0 || argv[offset] !== name) tooComplex('unexpected wrapped test command');
  const end = name === '[' && argv[argv.length - 1] === ']' ? argv.length - 1 : argv.length;
  const from = offset + 1;
  checkTestArguments(
    words.slice(from, end),
    nodes
      .slice(from, end)
      .map((node, index) => words[from + index]?.kind === 'literal' || node.type === 'string'),
  );
}
