import type { Language, Parser } from 'web-tree-sitter';
import { type CopiedTreeBuilder, type SyntaxNode, syntaxTreeBuilder } from './syntax-node.ts';

/**
 * The functions of web-tree-sitter's WebAssembly module (emscripten's `Module`, the object handed to
 * `Parser.init`) that the direct path calls. Each tree-sitter class method in web-tree-sitter is a
 * thin wrapper over one of these: it copies the cursor's or node's handles into the module's
 * transfer buffer, calls, and copies them back. A whole-tree walk does not need those copies: the
 * cursor can stay in the transfer buffer from its creation to its deletion, because nothing else
 * runs in between (the walk is synchronous and calls no JavaScript).
 *
 * Every index these functions return is in UTF-16 code units (the binding parses the string as
 * UTF-16 and halves byte offsets), the same unit as JavaScript string indices.
 */
export interface TreeSitterModule {
  _ts_parser_parse_wasm(
    parser: number,
    inputBuffer: number,
    oldTree: number,
    ranges: number,
    rangeCount: number,
  ): number;
  _ts_parser_reset(parser: number): void;
  _ts_parser_enable_logger_wasm(parser: number, enabled: number): void;
  _ts_tree_delete(tree: number): void;
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_node_has_error_wasm(tree: number): number;
  _ts_node_descendant_count_wasm(tree: number): number;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_named_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  /** Read by the module's parse callback: the text from a UTF-16 index on. */
  currentParseCallback: ((index: number) => string) | null;
  /** Read by the module's progress callback: true cancels the parse. */
  currentProgressCallback: (() => boolean) | null;
  currentLogCallback: null;
}

const requiredFunctions = [
  '_ts_parser_parse_wasm',
  '_ts_parser_reset',
  '_ts_parser_enable_logger_wasm',
  '_ts_tree_delete',
  '_ts_tree_root_node_wasm',
  '_ts_node_has_error_wasm',
  '_ts_node_descendant_count_wasm',
  '_ts_tree_cursor_new_wasm',
  '_ts_tree_cursor_delete_wasm',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_current_node_is_named_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
  '_ts_tree_cursor_current_field_id_wasm',
] as const;

/** What one direct parse found at the root, before anything is copied. */
export type DirectParse =
  | { kind: 'tree'; tree: number }
  | { kind: 'cancelled' }
  | { kind: 'syntax-error' }
  | { kind: 'too-large' };

/**
 * Parsing and copying through the module's functions directly (see {@link TreeSitterModule}), for
 * one parser and its language. Made by {@link directTreeAccess}, which refuses a module that lacks
 * any of the functions; the caller then stays on web-tree-sitter's classes.
 */
export class DirectTreeAccess {
  private readonly builder: CopiedTreeBuilder;
  private readonly parserHandle: number;
  private readonly inputBuffer: number;

  constructor(
    private readonly module: TreeSitterModule,
    parser: Parser,
    language: Language,
  ) {
    const handles = parser as unknown as { 0: number; 1: number };
    this.parserHandle = handles[0];
    this.inputBuffer = handles[1];
    this.builder = syntaxTreeBuilder(language);
    // efferent never logs parses; web-tree-sitter's parse() turns the logger off each time, once is enough.
    module._ts_parser_enable_logger_wasm(this.parserHandle, 0);
  }

  /**
   * Parses `source` (as `Parser.parse(source, null, { progressCallback: cancel })` does), then checks
   * the root: a syntax error anywhere, or more than `maxNodes` nodes, frees the tree at once. A
   * `tree` result must be handed to {@link copyAndDelete}.
   */
  parse(source: string, cancel: () => boolean, maxNodes: number): DirectParse {
    const module = this.module;
    module.currentParseCallback = (index) => source.slice(index);
    module.currentProgressCallback = cancel;
    module.currentLogCallback = null;
    let tree: number;
    try {
      tree = module._ts_parser_parse_wasm(this.parserHandle, this.inputBuffer, 0, 0, 0);
    } finally {
      module.currentParseCallback = null;
      module.currentProgressCallback = null;
    }
    if (tree === 0) {
      module._ts_parser_reset(this.parserHandle);
      return { kind: 'cancelled' };
    }
    module._ts_tree_root_node_wasm(tree);
    if (module._ts_node_has_error_wasm(tree) === 1) {
      module._ts_tree_delete(tree);
      return { kind: 'syntax-error' };
    }
    if (module._ts_node_descendant_count_wasm(tree) > maxNodes) {
      module._ts_tree_delete(tree);
      return { kind: 'too-large' };
    }
    return { kind: 'tree', tree };
  }

  /** Frees a tree {@link parse} returned without copying it. */
  deleteTree(tree: number): void {
    this.module._ts_tree_delete(tree);
  }

  /** Copies the tree `tree` (parsed from `source`) into plain objects, then frees it. */
  copyAndDelete(tree: number, source: string): SyntaxNode {
    try {
      return this.copy(tree, source);
    } finally {
      this.module._ts_tree_delete(tree);
    }
  }

  /**
   * One cursor walk over the whole tree, with the cursor kept in the transfer buffer: per node its
   * type, span, and (below the types whose fields are copied) its field; whether a type is named is
   * asked once per type.
   */
  private copy(tree: number, source: string): SyntaxNode {
    const module = this.module;
    const builder = this.builder;
    builder.start(source);
    module._ts_tree_root_node_wasm(tree);
    module._ts_tree_cursor_new_wasm(tree);
    try {
      for (;;) {
        const typeId = module._ts_tree_cursor_current_node_type_id_wasm(tree);
        let named = builder.namedByType[typeId];
        if (named === undefined) {
          named = module._ts_tree_cursor_current_node_is_named_wasm(tree) === 1;
          builder.namedByType[typeId] = named;
        }
        const fieldId = builder.parentWantsFields() ? module._ts_tree_cursor_current_field_id_wasm(tree) : 0;
        builder.add(
          typeId,
          named,
          module._ts_tree_cursor_start_index_wasm(tree),
          module._ts_tree_cursor_end_index_wasm(tree),
          fieldId,
        );
        if (module._ts_tree_cursor_goto_first_child_wasm(tree) === 1) {
          builder.open();
          continue;
        }
        if (builder.depth() === 0) return builder.finish();
        while (module._ts_tree_cursor_goto_next_sibling_wasm(tree) !== 1) {
          module._ts_tree_cursor_goto_parent_wasm(tree);
          builder.close();
          if (builder.depth() === 0) return builder.finish();
        }
      }
    } finally {
      module._ts_tree_cursor_delete_wasm(tree);
    }
  }
}

/**
 * The direct path for `parser`, or undefined when `module` is not web-tree-sitter's module object
 * (it was initialised before efferent could hand its own object over) or lacks a function.
 */
export function directTreeAccess(
  module: Partial<TreeSitterModule>,
  parser: Parser,
  language: Language,
): DirectTreeAccess | undefined {
  for (const name of requiredFunctions) if (typeof module[name] !== 'function') return undefined;
  const handles = parser as unknown as { 0?: unknown; 1?: unknown };
  if (typeof handles[0] !== 'number' || typeof handles[1] !== 'number' || handles[0] === 0) return undefined;
  return new DirectTreeAccess(module as TreeSitterModule, parser, language);
}
