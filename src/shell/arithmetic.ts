import type { SyntaxNode } from './syntax-node.ts';
import { tooComplex } from './walk-errors.ts';

/**
 * Arithmetic that bash evaluates without side effects. Bash evaluates the *value* of every variable
 * an arithmetic expression names as another arithmetic expression, and an array subscript inside
 * that value runs command substitutions (`x='a[$(cmd)]'; echo $((x))` runs cmd). A variable's value
 * is only known when the command runs (it may come from a file, a loop, `read`, the environment), so
 * only operands whose value is fixed are accepted: integer literals and the special parameters bash
 * always sets to a number. No assignment operators (they change shell state), no subscripts, no
 * substitutions, no variable names.
 */

/** Special parameters whose value is always a decimal number. */
const numericSpecials = new Set(['#', '?', '$', '!']);

/** Decimal, octal, hex and `base#digits` literals. */
const integerLiteral = /^(?:0[xX][0-9a-fA-F]+|[0-9]+|[0-9]{1,2}#[0-9A-Za-z@_]+)$/;

/** Operator tokens that only compute a value. */
const pureOperators = new Set([
  '+',
  '-',
  '*',
  '/',
  '%',
  '**',
  '<<',
  '>>',
  '&',
  '|',
  '^',
  '~',
  '!',
  '<',
  '>',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '?',
  ':',
  ',',
  '(',
  ')',
]);

/** Expression node types whose children are checked one by one. */
const expressionTypes = new Set([
  'binary_expression',
  'unary_expression',
  'parenthesized_expression',
  'ternary_expression',
]);

/** A `$N`-style expansion whose value is always a number (`$#`, `$?`, `$$`, `$!`). */
export function isNumericSpecial(node: SyntaxNode): boolean {
  if (node.type !== 'simple_expansion' && node.type !== 'expansion') return false;
  const name = node.namedChildren[0];
  if (!name || node.namedChildCount !== 1 || name.type !== 'special_variable_name') return false;
  if (node.type === 'expansion') {
    const tokens = node.children.map((child) => child.type);
    if (tokens.length !== 3 || tokens[0] !== '${' || tokens[2] !== '}') return false;
  }
  return numericSpecials.has(name.text);
}

/** Throws too-complex unless the expression inside `$(( ))` is free of side effects. */
export function checkPureArithmetic(node: SyntaxNode, tick: (node: SyntaxNode) => void): void {
  tick(node);
  if (!node.isNamed) {
    if (pureOperators.has(node.type)) return;
    tooComplex(
      `the arithmetic operator ${node.type} changes a variable; compute the value without assigning`,
      node.type,
    );
  }
  switch (node.type) {
    case 'number':
      if (node.childCount > 0 || !integerLiteral.test(node.text)) {
        tooComplex(`the arithmetic operand ${node.text.slice(0, 30)} is not a plain number`, node.type);
      }
      return;
    case 'arithmetic_expansion':
      checkArithmeticExpansion(node, tick);
      return;
    case 'simple_expansion':
    case 'expansion':
      if (isNumericSpecial(node)) return;
      break;
    default:
      if (expressionTypes.has(node.type)) {
        for (const child of node.children) checkPureArithmetic(child, tick);
        return;
      }
  }
  tooComplex(
    `the arithmetic operand ${node.text.slice(0, 30)} is evaluated as code when the command runs; use literal numbers`,
    node.type,
  );
}

/** Checks a whole `$(( … ))` node. */
export function checkArithmeticExpansion(node: SyntaxNode, tick: (node: SyntaxNode) => void): void {
  const [open, ...rest] = node.children;
  const close = rest.pop();
  if (open?.type !== '$((' || close?.type !== '))' || rest.length !== 1 || !rest[0]) {
    tooComplex(`the arithmetic expansion ${node.text.slice(0, 30)} is not analysed`, node.type);
  }
  checkPureArithmetic(rest[0], tick);
}

/**
 * Whether an operand of `[[ … -eq … ]]` (evaluated as arithmetic by bash) is fixed: an integer
 * literal, a numeric special parameter, or a side-effect-free `$(( ))`.
 */
export function isFixedArithmeticOperand(node: SyntaxNode, tick: (node: SyntaxNode) => void): boolean {
  if (node.type === 'number' || node.type === 'word') {
    return node.childCount === 0 && /^[-+]?(?:[0-9]+|0[xX][0-9a-fA-F]+)$/.test(node.text);
  }
  if (isNumericSpecial(node)) return true;
  if (node.type === 'arithmetic_expansion') {
    checkArithmeticExpansion(node, tick);
    return true;
  }
  return false;
}
