import type { SyntaxNode } from './syntax-node.ts';
import { tooComplex } from './walk-errors.ts';

/** Deepest syntax tree analysed; real commands stay far below it, and it bounds the cost of checks. */
const maxTreeDepth = 120;

/** Text the grammar may skip between tokens: blanks, newlines and line continuations. */
const skippable = /^(?:[ \t\n]|\\\n)*$/;
/** Tokens after or before which a bare line continuation cannot glue two words together. */
const operatorTokens = new Set(['|', '|&', '&&', '||', ';', '&', '(', ')', '$(', '<(', '>(']);

/**
 * Checks that the leaves of the tree account for every character of the source, so nothing the
 * grammar silently skipped can mean something to bash. Also rejects the two places where the
 * grammar and bash are known to disagree: a line continuation that bash uses to join two words
 * (`cu\<newline>rl`), and a `#` that does not start a word but was read as a comment.
 */
export function checkCoverage(root: SyntaxNode, source: string): void {
  checkRange(root, source, 0, source.length);
}

/**
 * Visits the leaves in source order. Each leaf is compared with the previous one through their
 * lowest common ancestor: the walk is depth-first, so the ancestors they share are the bottom of the
 * ancestor stack that stayed in place between them (`shared` entries), and the previous leaf's branch
 * below them is the node popped when the stack first shrank to that size.
 */
function checkRange(root: SyntaxNode, source: string, from: number, to: number): void {
  const walk = new LeafWalk(source, from);
  walk.visit(root);
  if (walk.previousEnd < to) checkGap(source.slice(walk.previousEnd, to), walk.previousType, '');
  for (const node of walk.nested) checkRange(node, source, node.startIndex, node.endIndex);
}

/** The state of one {@link checkRange} walk (a class, so no closures are made per walk). */
class LeafWalk {
  previousEnd: number;
  /** The type of the last leaf that extended the covered text; '' before the first. */
  previousType = '';
  private hasPrevious = false;
  /** How many ancestors of the previous leaf are still on the stack. */
  private shared = 0;
  /** The previous leaf's ancestor (or itself) just below the shared ones. */
  private previousBranch: SyntaxNode | undefined;
  /** Command substitutions in heredoc bodies, checked as ranges of their own afterwards. */
  readonly nested: SyntaxNode[] = [];
  private readonly path: SyntaxNode[] = [];

  constructor(
    private readonly source: string,
    from: number,
  ) {
    this.previousEnd = from;
  }

  visit(node: SyntaxNode): void {
    const path = this.path;
    path.push(node);
    if (path.length > maxTreeDepth) tooComplex('the command is nested too deeply to analyse');
    const type = node.type;
    // A heredoc body is data between its expansions; only its substitutions are code.
    if (type === 'heredoc_body') {
      for (const child of node.namedChildren)
        if (child.type === 'command_substitution') this.nested.push(child);
      this.leaf(type, node.startIndex, node.endIndex);
    } else if (node.children.length > 0) {
      for (const child of node.children) this.visit(child);
    } else this.leaf(type, node.startIndex, node.endIndex);
    path.pop();
    if (path.length < this.shared) {
      this.shared = path.length;
      this.previousBranch = node;
    }
  }

  private leaf(type: string, start: number, end: number): void {
    const path = this.path;
    if (start > this.previousEnd) {
      const gap = this.source.slice(this.previousEnd, start);
      checkGap(gap, this.previousType, type);
      if (this.hasPrevious) checkWordBreak(this.previousType, path[this.shared - 1]?.type ?? 'program', gap);
    } else if (this.hasPrevious && start === this.previousEnd) {
      checkWordJoin(path[this.shared - 1], this.previousBranch, path[this.shared]);
    }
    if (type === 'comment') checkComment(this.source, start);
    if (end > this.previousEnd) {
      this.previousEnd = end;
      this.previousType = type;
      this.hasPrevious = true;
      this.shared = path.length;
      this.previousBranch = undefined;
    }
  }
}

function checkGap(gap: string, before: string, after: string): void {
  if (!skippable.test(gap)) {
    tooComplex(`the parser skipped text (${JSON.stringify(gap.slice(0, 20))}) that bash would read`);
  }
  if (gap.includes('\\\n') && !/[ \t\n]/.test(gap.replaceAll('\\\n', ''))) {
    if (before !== '' && after !== '' && !operatorTokens.has(before) && !operatorTokens.has(after)) {
      tooComplex('a line continuation joins two words; write the word on one line');
    }
  }
}

/** Nodes inside which a newline the grammar skipped only separates statements or is quoted text. */
const newlineContainers = new Set([
  'program',
  'compound_statement',
  'subshell',
  'command_substitution',
  'process_substitution',
  'heredoc_redirect',
  'string',
  // Compound commands: a newline between their parts ends a statement, as `;` does.
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'for_statement',
  'do_group',
  'case_statement',
  'case_item',
]);
const continuingOperators = new Set(['&&', '||', '|', '|&']);

/** Node types that are one argument; two of them with nothing between are one word to bash. */
const argumentTypes = new Set([
  'word',
  'string',
  'raw_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'number',
  'command_name',
  'ansi_c_string',
  'translated_string',
]);

/**
 * Blanks between two leaves must separate words the way bash does: never inside one
 * concatenation (the grammar sometimes glues `{ ]` into one word), and a newline ends a simple
 * command, so one skipped inside a command or redirection means the grammar read the next line
 * as part of the same command.
 */
function checkWordBreak(beforeType: string, commonType: string, gap: string): void {
  const type = commonType;
  if (type === 'string' || type === 'heredoc_body') return;
  if (type === 'concatenation' || type === 'word') {
    tooComplex('the parser joined words that bash keeps apart; quote the argument');
  }
  if (!/(?<!\\)\n/.test(gap)) return;
  if (newlineContainers.has(type)) return;
  if ((type === 'list' || type === 'pipeline') && continuingOperators.has(beforeType)) return;
  tooComplex('a line break inside a command is read differently by bash; put each command on its own line');
}

/** Two arguments with nothing between them are one word to bash, whatever the grammar says. */
function checkWordJoin(
  common: SyntaxNode | undefined,
  left: SyntaxNode | undefined,
  right: SyntaxNode | undefined,
): void {
  if (!common || !['command', 'declaration_command', 'unset_command', 'file_redirect'].includes(common.type))
    return;
  if (!left || !right) return;
  if (left.id !== right.id && argumentTypes.has(left.type) && argumentTypes.has(right.type)) {
    tooComplex('the parser split one word in two; quote the argument');
  }
}

function checkComment(source: string, start: number): void {
  const previous = start === 0 ? '\n' : source[start - 1];
  if (previous === undefined || !/[ \t\n;&|()]/.test(previous)) {
    tooComplex('a "#" inside a word was read as a comment; quote it');
  }
}
