import type { SyntaxNode } from './syntax-node.ts';
import { type CwdState, mergeCwd } from './cwd.ts';
import { isLocalVariableName } from './env-vars.ts';
import { testCommandWords } from './test-expression.ts';
import { tooComplex } from './walk-errors.ts';
import { checkExpansions, type ResolvedWord, resolveWord, type WordHost } from './word-resolver.ts';

/**
 * Compound commands whose effects are the union of their parts: `if`/`elif`/`else`, `while`,
 * `until`, `for NAME in WORDS`, `case`, and test expressions. Every part (conditions, bodies, every
 * branch, loop words, case words and patterns) is walked as if it ran, so each simple command that
 * can run is judged on its own; a construct adds no effect of its own beyond setting its loop
 * variable. What cannot be modelled fails closed:
 *
 * - a loop whose body changes directory (the second pass would run elsewhere);
 * - `case` fall-through (`;&`, `;;&`) together with a directory change;
 * - C-style `for (( ))` and `select` (not handled here, so too-complex).
 *
 * A loop variable is runtime-valued afterwards, like any variable assigned on the line.
 */

/** What the walker offers the construct walker; `F` is the walker's frame. */
export interface ConstructHost<F> extends WordHost {
  /** Walks one statement in the given frame. */
  walkStatement(node: SyntaxNode, frame: F, cwd: string | null): CwdState;
  /** The frame for the parts of a compound command (its redirections apply to every part). */
  partFrame(frame: F): F;
  /** Emits a synthetic simple command (a test expression) in the frame. */
  emitWords(words: ResolvedWord[], frame: F, cwd: string | null, node: SyntaxNode): CwdState;
  /** Records a variable the construct assigns (a loop variable). */
  assignVariable(name: string): void;
  /** How many directory changes the walk has seen so far. */
  directoryChanges(): number;
}

/** Node types {@link walkConstruct} handles. */
export const constructTypes: ReadonlySet<string> = new Set([
  'if_statement',
  'while_statement',
  'for_statement',
  'case_statement',
  'test_command',
]);

const separators = new Set([';', '&', '\n']);

/** Statements in order, the way the walker runs a list body: `&` leaves the directory unchanged. */
function walkStatements<F>(
  host: ConstructHost<F>,
  nodes: readonly SyntaxNode[],
  frame: F,
  cwd: string | null,
): CwdState {
  let state: CwdState = { success: cwd, any: cwd };
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index];
    if (!node) continue;
    if (!node.isNamed) {
      if (separators.has(node.type)) continue;
      tooComplex(`unexpected token ${node.type}`, node.type);
    }
    if (node.type === 'comment') continue;
    const background = nodes[index + 1]?.type === '&';
    const result = host.walkStatement(node, frame, state.any);
    state = background ? { success: state.any, any: state.any } : result;
  }
  return state;
}

/** Splits a clause's children at its keywords: `if A; then B; fi` → {if: [A], then: [B]}. */
function segments(
  node: SyntaxNode,
  keywords: ReadonlySet<string>,
): Array<{ keyword: string; nodes: SyntaxNode[] }> {
  const result: Array<{ keyword: string; nodes: SyntaxNode[] }> = [];
  for (const child of node.children) {
    if (!child.isNamed && keywords.has(child.type)) {
      result.push({ keyword: child.type, nodes: [] });
      continue;
    }
    const current = result[result.length - 1];
    if (!current) tooComplex(`unexpected ${child.type} in ${node.type.replaceAll('_', ' ')}`, child.type);
    current.nodes.push(child);
  }
  return result;
}

function merge(states: readonly CwdState[]): CwdState {
  const [first, ...rest] = states;
  if (!first) return { success: null, any: null };
  return rest.reduce(
    (left, right) => ({ success: mergeCwd(left.success, right.success), any: mergeCwd(left.any, right.any) }),
    first,
  );
}

function walkIf<F>(host: ConstructHost<F>, node: SyntaxNode, frame: F, cwd: string | null): CwdState {
  const parts = segments(node, new Set(['if', 'then', 'fi']));
  const condition = parts.find((part) => part.keyword === 'if');
  const body = parts.find((part) => part.keyword === 'then');
  if (!condition || !body || parts.length !== 3) tooComplex('unexpected if statement', node.type);
  const clauses = body.nodes.filter((child) => child.type === 'elif_clause' || child.type === 'else_clause');
  const thenNodes = body.nodes.filter(
    (child) => child.type !== 'elif_clause' && child.type !== 'else_clause',
  );
  const tested = walkStatements(host, condition.nodes, frame, cwd);
  const outcomes: CwdState[] = [walkStatements(host, thenNodes, frame, tested.success)];
  let failed = tested.any;
  let sawElse = false;
  for (const clause of clauses) {
    if (sawElse) tooComplex('unexpected clause after else', clause.type);
    if (clause.type === 'else_clause') {
      const [elsePart, ...extra] = segments(clause, new Set(['else']));
      if (!elsePart || extra.length > 0) tooComplex('unexpected else clause', clause.type);
      outcomes.push(walkStatements(host, elsePart.nodes, frame, failed));
      sawElse = true;
      continue;
    }
    const elifParts = segments(clause, new Set(['elif', 'then']));
    const [elifCondition, elifBody, ...extra] = elifParts;
    if (elifCondition?.keyword !== 'elif' || elifBody?.keyword !== 'then' || extra.length > 0) {
      tooComplex('unexpected elif clause', clause.type);
    }
    const elifTested = walkStatements(host, elifCondition.nodes, frame, failed);
    outcomes.push(walkStatements(host, elifBody.nodes, frame, elifTested.success));
    failed = elifTested.any;
  }
  if (!sawElse) outcomes.push({ success: failed, any: failed });
  return merge(outcomes);
}

/** The statements of a `do … done` group. */
function doGroup(node: SyntaxNode | undefined): SyntaxNode[] {
  if (node?.type !== 'do_group')
    return tooComplex('a loop without a do … done body is not analysed', node?.type);
  const children = node.children;
  if (children[0]?.type !== 'do' || children[children.length - 1]?.type !== 'done') {
    tooComplex('unexpected loop body', node.type);
  }
  return children.slice(1, -1);
}

/** A loop body runs any number of times; a directory change inside it would move later passes. */
function walkLoop<F>(
  host: ConstructHost<F>,
  walk: () => void,
  node: SyntaxNode,
  cwd: string | null,
): CwdState {
  const before = host.directoryChanges();
  walk();
  if (host.directoryChanges() !== before) {
    tooComplex('a loop that changes directory is not analysed; cd before the loop instead', node.type);
  }
  return { success: cwd, any: cwd };
}

function walkWhile<F>(host: ConstructHost<F>, node: SyntaxNode, frame: F, cwd: string | null): CwdState {
  const [keyword, ...rest] = node.children;
  if (keyword?.type !== 'while' && keyword?.type !== 'until') tooComplex('unexpected loop', node.type);
  const body = rest.pop();
  return walkLoop(
    host,
    () => {
      walkStatements(host, rest, frame, cwd);
      walkStatements(host, doGroup(body), frame, cwd);
    },
    node,
    cwd,
  );
}

function walkFor<F>(host: ConstructHost<F>, node: SyntaxNode, frame: F, cwd: string | null): CwdState {
  const [keyword, name, ...rest] = node.children;
  if (keyword?.type !== 'for' || name?.type !== 'variable_name') tooComplex('unexpected for loop', node.type);
  if (!isLocalVariableName(name.text)) {
    tooComplex(
      `the loop variable ${name.text} may be one the shell or a program uses; use a lowercase name such as f`,
      node.type,
    );
  }
  const body = rest.pop();
  let index = 0;
  const patterns: ResolvedWord[] = [];
  if (rest[0]?.type === 'in') {
    index = 1;
    for (; index < rest.length; index++) {
      const word = rest[index];
      if (!word || separators.has(word.type)) break;
      const resolved = resolveWord(word, host);
      checkExpansions(resolved, word);
      if (resolved.kind === 'glob' || (resolved.kind === 'dynamic' && /[*?[]/.test(resolved.unquoted)))
        patterns.push(resolved);
    }
  }
  // The shell lists a directory to expand each pattern of the list: that listing is judged like
  // the words of `:` (class pattern-listing, docs/decisions/security-pattern-listing.md).
  if (patterns.length > 0)
    host.emitWords([{ text: ':', kind: 'literal', unquoted: ':' }, ...patterns], frame, cwd, node);
  for (const extra of rest.slice(index)) {
    if (!separators.has(extra.type) && extra.type !== 'comment') {
      tooComplex(`unexpected ${extra.type} in a for loop`, extra.type);
    }
  }
  // Bash expands the words first, then assigns the variable before each pass of the body.
  host.assignVariable(name.text);
  return walkLoop(host, () => walkStatements(host, doGroup(body), frame, cwd), node, cwd);
}

const caseTerminators = new Set([';;', ';&', ';;&']);

function walkCase<F>(host: ConstructHost<F>, node: SyntaxNode, frame: F, cwd: string | null): CwdState {
  const [keyword, subject, inKeyword, ...rest] = node.children;
  const end = rest.pop();
  if (keyword?.type !== 'case' || !subject || inKeyword?.type !== 'in' || end?.type !== 'esac') {
    tooComplex('unexpected case statement', node.type);
  }
  checkExpansions(resolveWord(subject, host), subject);
  const before = host.directoryChanges();
  const outcomes: CwdState[] = [{ success: cwd, any: cwd }];
  let fallsThrough = false;
  for (const item of rest) {
    if (!item.isNamed && separators.has(item.type)) continue;
    if (item.type === 'comment') continue;
    if (item.type !== 'case_item') tooComplex(`unexpected ${item.type} in a case statement`, item.type);
    const children = item.children;
    const close = children.findIndex((child) => child.type === ')');
    if (close === -1) tooComplex('unexpected case item', item.type);
    for (const pattern of children.slice(0, close)) {
      if (pattern.type === '|' || pattern.type === '(') continue;
      if (pattern.type === 'extglob_pattern') {
        if (/`|\$|[<>]\(/.test(pattern.text)) {
          tooComplex(`the case pattern ${pattern.text.slice(0, 30)} contains an expansion`, pattern.type);
        }
        continue;
      }
      checkExpansions(resolveWord(pattern, host), pattern);
    }
    let statements = children.slice(close + 1);
    const last = statements[statements.length - 1];
    if (last && caseTerminators.has(last.type)) {
      if (last.type !== ';;') fallsThrough = true;
      statements = statements.slice(0, -1);
    }
    outcomes.push(walkStatements(host, statements, frame, cwd));
  }
  if (host.directoryChanges() === before) return { success: cwd, any: cwd };
  if (fallsThrough) tooComplex('a case with fall-through that changes directory is not analysed', node.type);
  return merge(outcomes);
}

/** Walks one compound command or test expression; the caller has checked {@link constructTypes}. */
export function walkConstruct<F>(
  host: ConstructHost<F>,
  node: SyntaxNode,
  frame: F,
  cwd: string | null,
): CwdState {
  host.tick(node);
  const parts = host.partFrame(frame);
  switch (node.type) {
    case 'if_statement':
      return walkIf(host, node, parts, cwd);
    case 'while_statement':
      return walkWhile(host, node, parts, cwd);
    case 'for_statement':
      return walkFor(host, node, parts, cwd);
    case 'case_statement':
      return walkCase(host, node, parts, cwd);
    case 'test_command':
      return host.emitWords(testCommandWords(node, host), frame, cwd, node);
    default:
      return tooComplex(`${node.type.replaceAll('_', ' ')} is not analysed; run simpler commands`, node.type);
  }
}
