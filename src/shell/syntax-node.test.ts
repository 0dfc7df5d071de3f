import { readFileSync } from 'node:fs';
import type { Node } from 'web-tree-sitter';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, parseBash } from './parser.ts';
import { copySyntaxTree, type SyntaxNode, typesWithFields } from './syntax-node.ts';

const sample = (
  JSON.parse(
    readFileSync(new URL('./fixtures/security-sample-bash.json', import.meta.url), 'utf8'),
  ) as Array<{
    command: string;
  }>
).map((entry) => entry.command);

const extra = [
  'A=1 B="$x" read -r line <<< "$input"',
  'cat <<EOF | grep x\nline $(date)\nEOF\necho done',
  'for f in a b; do echo "$f" > "out/$f"; done',
  'x=$((1 + 2)); case $x in 3) echo ok;; *) echo no;; esac',
  'echo \'é ü 日本\' "$HOME"/ü',
];

const fieldNames = ['name', 'value', 'argument', 'redirect', 'body', 'operator', 'left', 'right'];

function fieldsOf(node: Node | SyntaxNode): Array<number | null> {
  if (!typesWithFields.has(node.type)) return [];
  return fieldNames.map((field) => node.childForFieldName(field)?.startIndex ?? null);
}

/** Everything the analysis reads of a node, from tree-sitter's own Node API, as plain data. */
function viaTreeSitter(node: Node): unknown {
  return {
    type: node.type,
    isNamed: node.isNamed,
    startIndex: node.startIndex,
    endIndex: node.endIndex,
    text: node.text,
    childCount: node.childCount,
    namedChildCount: node.namedChildCount,
    named: node.namedChildren.map((child) => child.startIndex),
    fields: fieldsOf(node),
    children: node.children.map(viaTreeSitter),
  };
}

function viaCopy(node: SyntaxNode): unknown {
  return {
    type: node.type,
    isNamed: node.isNamed,
    startIndex: node.startIndex,
    endIndex: node.endIndex,
    text: node.text,
    childCount: node.childCount,
    namedChildCount: node.namedChildCount,
    named: node.namedChildren.map((child) => child.startIndex),
    fields: fieldsOf(node),
    children: node.children.map(viaCopy),
  };
}

function ids(node: SyntaxNode, into: number[] = []): number[] {
  into.push(node.id);
  for (const child of node.children) ids(child, into);
  return into;
}

describe('copySyntaxTree', () => {
  beforeAll(() => loadShellParser());

  it('refuses to answer a field it did not copy', () => {
    const outcome = parseBash('ls -la');
    if (outcome.kind !== 'tree') throw new Error('no tree');
    const copy = copySyntaxTree(outcome.tree, 'ls -la');
    outcome.tree.delete();
    expect(() => copy.childForFieldName('name')).toThrow(/typesWithFields/);
    expect(copy.children[0]?.childForFieldName('name')?.text).toBe('ls');
  });

  it('answers every question the analysis asks exactly as tree-sitter does', () => {
    for (const command of sample.concat(extra)) {
      const outcome = parseBash(command);
      if (outcome.kind !== 'tree') throw new Error(`no tree for ${command}`);
      try {
        const copy = copySyntaxTree(outcome.tree, command);
        expect(viaCopy(copy), command).toEqual(viaTreeSitter(outcome.tree.rootNode));
        const all = ids(copy);
        expect(new Set(all).size, command).toBe(all.length);
      } finally {
        outcome.tree.delete();
      }
    }
  });
});
