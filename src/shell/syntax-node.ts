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
    this.named ??= namedOnly(this.children);
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

/** The named ones of `children`: the same array when all are named (neither is ever changed). */
function namedOnly(children: readonly CopiedNode[]): readonly CopiedNode[] {
  for (const child of children) if (!child.isNamed) return children.filter((each) => each.isNamed);
  return children;
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

/**
 * Builds the copied tree from a depth-first walk that reports each node as it arrives
 * ({@link add}), then whether the walk went down into it ({@link open}) and back up ({@link close}).
 * One builder serves every tree of one grammar, one tree at a time; it keeps per type id whether the
 * type is named and whether its children's fields are wanted, so the walk asks those once per type.
 */
export class CopiedTreeBuilder {
  /** Per type id: whether the type is named, once the walk has asked. */
  readonly namedByType: Array<boolean | undefined> = [];
  private readonly types: readonly string[];
  private readonly fields: readonly (string | null)[];
  private readonly fieldsWantedByType: boolean[];
  private readonly openNodes: CopiedNode[] = [];
  private readonly openChildren: CopiedNode[][] = [];
  private readonly openWantsFields: boolean[] = [];
  private source = '';
  private count = 0;
  private root: CopiedNode | undefined;
  private last: CopiedNode | undefined;
  /** Whether the children of the node added last fill fields that are copied. */
  private wantsFieldsOfLast = false;

  constructor(language: Language) {
    this.types = language.types;
    this.fields = language.fields;
    this.fieldsWantedByType = language.types.map((type) => typesWithFields.has(type));
  }

  /** Starts a tree parsed from `source`. */
  start(source: string): void {
    this.source = source;
    this.count = 0;
    this.root = undefined;
    this.last = undefined;
    this.openNodes.length = 0;
    this.openChildren.length = 0;
    this.openWantsFields.length = 0;
  }

  /** Whether the node about to be added needs its field: its parent is of a type in {@link typesWithFields}. */
  parentWantsFields(): boolean {
    const depth = this.openWantsFields.length;
    return depth > 0 && this.openWantsFields[depth - 1] === true;
  }

  /** How many nodes are open (the walk is inside them). */
  depth(): number {
    return this.openNodes.length;
  }

  /** The next node in depth-first order; `fieldId` 0 when it fills no field (or it was not asked). */
  add(typeId: number, named: boolean, startIndex: number, endIndex: number, fieldId: number): void {
    const node = new CopiedNode(
      this.count++,
      this.types[typeId] || 'ERROR',
      named,
      startIndex,
      endIndex,
      fieldId === 0 ? null : (this.fields[fieldId] ?? null),
      this.source,
    );
    const depth = this.openChildren.length;
    if (depth > 0) this.openChildren[depth - 1]?.push(node);
    else this.root = node;
    this.last = node;
    this.wantsFieldsOfLast = this.fieldsWantedByType[typeId] === true;
  }

  /** The walk went into the node added last: what follows are its children. */
  open(): void {
    const node = this.last;
    if (!node) throw new Error('The tree walk opened a node before adding one.');
    const children: CopiedNode[] = [];
    node.children = children;
    this.openNodes.push(node);
    this.openChildren.push(children);
    this.openWantsFields.push(this.wantsFieldsOfLast);
  }

  /** The walk left the innermost open node. */
  close(): void {
    this.openNodes.pop();
    this.openChildren.pop();
    this.openWantsFields.pop();
  }

  /** The root of the finished tree; the builder forgets it. */
  finish(): SyntaxNode {
    const root = this.root;
    if (!root) throw new Error('The tree walk finished without a root node.');
    this.start('');
    return root;
  }
}

const buildersOf = new WeakMap<Language, CopiedTreeBuilder>();

/** The builder for trees of `language` (one per grammar, reused from tree to tree). */
export function syntaxTreeBuilder(language: Language): CopiedTreeBuilder {
  let builder = buildersOf.get(language);
  if (!builder) {
    builder = new CopiedTreeBuilder(language);
    buildersOf.set(language, builder);
  }
  return builder;
}

/**
 * Characters a word of a {@link simpleCommandSyntax} line may hold: letters, digits and
 * `_ . / + , : = -`, none of which bash gives a meaning inside an unquoted word (no expansion,
 * quoting, globbing, operator, comment or tilde). `@` and `%` are plain to bash too, but the grammar
 * reads some words holding them (and `==`) as errors, so those lines are left to it. Indexed by
 * UTF-16 code unit.
 */
const plainWordCharacter: readonly boolean[] = (() => {
  const table: boolean[] = new Array(128).fill(false);
  for (const character of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+,:=-')
    table[character.charCodeAt(0)] = true;
  return table;
})();

/**
 * Words bash reads as syntax in command position (and `[[`, `]]`, `{`, `}`, `!`, which need
 * characters outside {@link plainWordCharacter} anyway), and the builtins the grammar gives a node
 * type of their own. A line starting with one is left to the grammar.
 */
const reservedWords: ReadonlySet<string> = new Set([
  'if',
  'then',
  'elif',
  'else',
  'fi',
  'case',
  'esac',
  'for',
  'select',
  'while',
  'until',
  'do',
  'done',
  'in',
  'function',
  'time',
  'coproc',
  // The grammar's own command types: declarations and unsets.
  'declare',
  'typeset',
  'export',
  'readonly',
  'local',
  'unset',
  'unsetenv',
]);

/** The longest line {@link simpleCommandSyntax} reads; longer ones go to the grammar. */
const maxSimpleLine = 4096;

/**
 * The tree tree-sitter's bash grammar gives a line that is one plain command, built without the
 * grammar: words of {@link plainWordCharacter}s separated by spaces or tabs, the first not a reserved
 * word, not starting with a digit or `-` and without `=` (that would be an assignment). Most commands a model runs are such lines
 * (`git status`, `npm run build`, `ls -la src`), and reading them this way costs a fraction of a
 * parse. The tree is node for node what the grammar gives (a test compares the two on generated
 * lines): `program` › `command` › `command_name` › `word`, then one `word` per argument (a `number`
 * for an argument of digits, optionally after `-`), with the `name`/`argument` fields. Undefined for
 * any other line (and for the few plain words the grammar reads otherwise: other words starting with
 * a digit, `@`, `%`, `==`, `+:` in a command name), and when the tree would have more than `maxNodes` nodes: the grammar decides those.
 */
export function simpleCommandSyntax(source: string, maxNodes: number): SyntaxNode | undefined {
  const length = source.length;
  if (length === 0 || length > maxSimpleLine) return undefined;
  const spans: number[] = [];
  let index = 0;
  while (index < length) {
    const code = source.charCodeAt(index);
    if (code === 32 || code === 9) {
      index++;
      continue;
    }
    const start = index;
    let previous = 0;
    while (index < length) {
      const inner = source.charCodeAt(index);
      if (inner === 32 || inner === 9) break;
      if (inner >= 128 || plainWordCharacter[inner] !== true) return undefined;
      // `==` in a word is an error to the grammar (it reads a test operator).
      if (inner === 61 && previous === 61) return undefined;
      previous = inner;
      index++;
    }
    spans.push(start, index);
  }
  if (spans.length === 0 || spans.length / 2 + 3 > maxNodes) return undefined;
  const nameStart = spans[0] as number;
  const nameEnd = spans[1] as number;
  const name = source.slice(nameStart, nameEnd);
  // `+:` in a command name is an error to the grammar (it reads an expansion operator).
  if (name.includes('=') || name.includes('+:') || reservedWords.has(name)) return undefined;
  // The grammar reads a leading `-` word oddly (`- a=b x` loses the `-`): such lines are left to it.
  const first = name.charCodeAt(0);
  if (first === 45 || isDigitCode(first)) return undefined;
  const lastEnd = spans[spans.length - 1] as number;
  let id = 0;
  const program = new CopiedNode(id++, 'program', true, nameStart, length, null, source);
  const command = new CopiedNode(id++, 'command', true, nameStart, lastEnd, null, source);
  const commandName = new CopiedNode(id++, 'command_name', true, nameStart, nameEnd, 'name', source);
  commandName.children = [new CopiedNode(id++, 'word', true, nameStart, nameEnd, null, source)];
  const commandChildren: CopiedNode[] = [commandName];
  for (let at = 2; at < spans.length; at += 2) {
    const start = spans[at] as number;
    const end = spans[at + 1] as number;
    // Digits (after an optional `-`) are a `number`; other words starting so (`0x1`) may be too.
    const type = isNumberWord(source, start, end) ? 'number' : 'word';
    if (type === 'word' && startsLikeNumber(source, start, end)) return undefined;
    commandChildren.push(new CopiedNode(id++, type, true, start, end, 'argument', source));
  }
  command.children = commandChildren;
  program.children = [command];
  return program;
}

/** Whether the word starts with a digit, or with `-` and a digit. */
function startsLikeNumber(source: string, start: number, end: number): boolean {
  const at = source.charCodeAt(start) === 45 ? start + 1 : start;
  return at < end && isDigitCode(source.charCodeAt(at));
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Whether the grammar reads the word as a `number`: digits, optionally after one `-`. */
function isNumberWord(source: string, start: number, end: number): boolean {
  let at = source.charCodeAt(start) === 45 ? start + 1 : start;
  if (at === end) return false;
  for (; at < end; at++) if (!isDigitCode(source.charCodeAt(at))) return false;
  return true;
}
