import type { Node } from 'web-tree-sitter';
import { tooComplex } from './walk-errors.ts';

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
export function checkCoverage(root: Node, source: string): void {
  checkRange(root, source, 0, source.length);
}

function checkRange(root: Node, source: string, from: number, to: number): void {
  const cursor = root.walk();
  let previousEnd = from;
  let previousType = '';
  const nested: Node[] = [];
  try {
    let descending = true;
    for (;;) {
      const current = cursor.currentNode;
      // A heredoc body is data between its expansions; only its substitutions are code.
      const opaque = current.type === 'heredoc_body';
      if (opaque && descending) {
        for (const child of current.namedChildren)
          if (child.type === 'command_substitution') nested.push(child);
      }
      if (descending && !opaque && cursor.gotoFirstChild()) continue;
      const node = cursor.currentNode;
      if (node.childCount === 0 || opaque) {
        const start = node.startIndex;
        if (start > previousEnd) checkGap(source.slice(previousEnd, start), previousType, node.type);
        if (node.type === 'comment') checkComment(source, start);
        if (node.endIndex > previousEnd) {
          previousEnd = node.endIndex;
          previousType = node.type;
        }
      }
      if (cursor.gotoNextSibling()) {
        descending = true;
        continue;
      }
      descending = false;
      if (!cursor.gotoParent()) break;
    }
  } finally {
    cursor.delete();
  }
  if (previousEnd < to) checkGap(source.slice(previousEnd, to), previousType, '');
  for (const node of nested) checkRange(node, source, node.startIndex, node.endIndex);
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

function checkComment(source: string, start: number): void {
  const previous = start === 0 ? '\n' : source[start - 1];
  if (previous === undefined || !/[ \t\n;&|()]/.test(previous)) {
    tooComplex('a "#" inside a word was read as a comment; quote it');
  }
}
