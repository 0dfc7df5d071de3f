import { type SyntaxNode, typesWithFields } from '../../src/shell/syntax-node.ts';

/** The grammar fields the analysis may ask a node for. */
const fieldNames = ['name', 'value', 'argument', 'redirect', 'body', 'operator', 'left', 'right'];

/**
 * Everything the analysis can read of a copied syntax node, as plain data, for tests that compare
 * two ways of building the same tree (the grammar through web-tree-sitter's classes, its module's
 * functions directly, or the plain-line reader).
 */
export function dumpSyntaxNode(node: SyntaxNode): unknown {
  return {
    id: node.id,
    type: node.type,
    isNamed: node.isNamed,
    startIndex: node.startIndex,
    endIndex: node.endIndex,
    text: node.text,
    childCount: node.childCount,
    namedChildCount: node.namedChildCount,
    named: node.namedChildren.map((child) => child.id),
    fields: typesWithFields.has(node.type)
      ? fieldNames.map((field) => node.childForFieldName(field)?.id ?? null)
      : [],
    children: node.children.map(dumpSyntaxNode),
  };
}
