import type { Language, Tree } from 'web-tree-sitter';

/**
 * One node of a parsed command line, copied out of tree-sitter's memory into plain JavaScript
 * objects. The analysis reads every node's type, children and text many times; through
 * web-tree-sitter's own `Node` each of those reads is a call into WebAssembly (and `children`
 * marshals a fresh array), which cost more than the parse itself. The copy is made in one tree-cursor
 * walk ({@link copySyntaxTree}) and offers the subset of `Node` the analysis uses, with the same
 * meaning: visible nodes only, `children` in source order, indices in UTF-16 code units.
 */
export interface SyntaxNode {
  /** Unique within one copied tree (tree-sitter's `id` plays the same role). */
  readonly id: number;
  readonly type: string;
  readonly isNamed: boolean;
  readonly startIndex: number;
  readonly endIndex: number;
  /** The source text the node spans. */
  readonly text: string;
  readonly children: readonly SyntaxNode[];
  readonly namedChildren: readonly SyntaxNode[];
  readonly childCount: number;
  readonly namedChildCount: number;
  /**
   * The first child that fills the grammar field `name`, as tree-sitter's `childForFieldName`. Only
   * for the node types in {@link typesWithFields}; any other type throws (a mistake in efferent).
   */
  childForFieldName(name: string): SyntaxNode | null;
}

/**
 * The node types whose children's grammar fields are copied: the ones the analysis asks a field of.
 * Asking for the field of every node would add a call into WebAssembly per node.
 */
export const typesWithFields: ReadonlySet<string> = new Set(['command', 'variable_assignment']);

const noChildren: readonly CopiedNode[] = Object.freeze([]);

class CopiedNode implements SyntaxNode {
  children: readonly CopiedNode[] = noChildren;
  private named: readonly CopiedNode[] | undefined;

  constructor(
    readonly id: number,
    readonly type: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    /** The grammar field this node fills in its parent, if any. */
    readonly field: string | null,
    private readonly source: string,
  ) {}

  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }

  get namedChildren(): readonly CopiedNode[] {
    this.named ??= this.children.length === 0 ? noChildren : this.children.filter((child) => child.isNamed);
    return this.named;
  }

  get childCount(): number {
    return this.children.length;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  childForFieldName(name: string): SyntaxNode | null {
    if (!typesWithFields.has(this.type))
      throw new Error(`The fields of ${this.type} nodes are not copied; add the type to typesWithFields.`);
    for (const child of this.children) if (child.field === name) return child;
    return null;
  }
}

/** Per grammar: whether each node type (by id) is named. */
const namedTypesOf = new WeakMap<Language, Map<number, boolean>>();

/**
 * Copies the tree `tree` (parsed from `source`) into {@link SyntaxNode}s with one cursor walk:
 * per node its type, whether it is named, its span and (below {@link typesWithFields}) its field,
 * and nothing else is asked of WebAssembly. Whether a type is named depends on the type alone, so
 * that answer is asked once per type of the grammar. Iterative, so any depth of nesting is copied
 * (the depth limit is checked by the analysis).
 */
export function copySyntaxTree(tree: Tree, source: string): SyntaxNode {
  const language = tree.language;
  const { types, fields } = language;
  let namedByType = namedTypesOf.get(language);
  if (!namedByType) {
    namedByType = new Map();
    namedTypesOf.set(language, namedByType);
  }
  const cursor = tree.walk();
  const open: Array<{ node: CopiedNode; children: CopiedNode[]; fields: boolean }> = [];
  let count = 0;
  try {
    for (;;) {
      const typeId = cursor.nodeTypeId;
      let isNamed = namedByType.get(typeId);
      if (isNamed === undefined) {
        isNamed = cursor.nodeIsNamed;
        namedByType.set(typeId, isNamed);
      }
      const parent = open[open.length - 1];
      const fieldId = parent?.fields ? cursor.currentFieldId : 0;
      const node = new CopiedNode(
        count++,
        types[typeId] || 'ERROR',
        isNamed,
        cursor.startIndex,
        cursor.endIndex,
        fieldId === 0 ? null : (fields[fieldId] ?? null),
        source,
      );
      parent?.children.push(node);
      if (cursor.gotoFirstChild()) {
        const children: CopiedNode[] = [];
        node.children = children;
        open.push({ node, children, fields: typesWithFields.has(node.type) });
        continue;
      }
      if (open.length === 0) return node;
      while (!cursor.gotoNextSibling()) {
        cursor.gotoParent();
        const closed = open.pop();
        if (open.length === 0 && closed) return closed.node;
      }
    }
  } finally {
    cursor.delete();
  }
}
