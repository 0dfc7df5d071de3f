import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Parser, Tree } from 'web-tree-sitter';
import { copySyntaxTree, type SyntaxNode, simpleCommandSyntax } from './syntax-node.ts';
import { type DirectTreeAccess, directTreeAccess, type TreeSitterModule } from './wasm-tree.ts';

/** Parses slower than this are treated as adversarial input. */
const parseTimeoutMs = 500;

let parser: Parser | undefined;
let loading: Promise<void> | undefined;
/** The direct path into the grammar's module (wasm-tree.ts), when the module could be reached. */
let direct: DirectTreeAccess | undefined;

/**
 * Loads web-tree-sitter and the bash grammar shipped with efferent (no network).
 * Idempotent: concurrent and repeated calls share one load.
 */
export function loadShellParser(): Promise<void> {
  if (parser) return Promise.resolve();
  loading ??= (async () => {
    // Loaded here, not at start-up: commands that never analyse a shell command don't pay for it.
    const { Language, Parser } = await import('web-tree-sitter');
    const module = sharedModuleObject();
    await Parser.init(module);
    const language = await Language.load(grammarPath());
    const instance = new Parser();
    instance.setLanguage(language);
    direct = directTreeAccess(module, instance, language);
    parser = instance;
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

const moduleKey = Symbol.for('efferent.shell.tree-sitter-module');

/**
 * The object handed to `Parser.init`, which emscripten fills with the module's functions. web-tree-sitter
 * keeps the first module it made and ignores later objects, so the object is kept process-wide:
 * a second copy of this file (test runners load modules once per test file) finds the one the
 * first copy handed over, already filled.
 */
function sharedModuleObject(): Partial<TreeSitterModule> {
  const global = globalThis as { [moduleKey]?: Partial<TreeSitterModule> };
  global[moduleKey] ??= {};
  return global[moduleKey];
}

/**
 * The grammar file (`src/shell/grammar/`, copied to `dist/shell/grammar/` by the build): next to this
 * module in the sources and in `dist/shell/`, one level up from the bundles in `dist/bundle/` and
 * `dist/cli/`.
 */
function grammarPath(): string {
  const candidates = ['./grammar/tree-sitter-bash.wasm', '../shell/grammar/tree-sitter-bash.wasm'].map(
    (relative) => fileURLToPath(new URL(relative, import.meta.url)),
  );
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found)
    throw new Error(`The bash grammar is missing (looked for ${candidates.join(', ')}); reinstall efferent.`);
  return found;
}

/** True once {@link loadShellParser} has finished. */
export function isShellParserLoaded(): boolean {
  return parser !== undefined;
}

/** The outcome of one parse: a tree the caller must `delete()`, or why there is none. */
export type ParseOutcome = { kind: 'tree'; tree: Tree } | { kind: 'unavailable' } | { kind: 'timeout' };

let parses = 0;

/**
 * How many times tree-sitter has been asked to parse in this process (a body run through `bash -c`
 * or `eval` counts as a parse of its own). Tests use it to prove a call is parsed once.
 */
export function shellParseCount(): number {
  return parses;
}

let deadline = 0;
let timedOut = false;

/** The progress callback of the parse under way: true cancels it (web-tree-sitter contract). */
function pastDeadline(): boolean {
  if (performance.now() > deadline) timedOut = true;
  return timedOut;
}

/** Parses `source` with a time budget; synchronous because the grammar is already loaded. */
export function parseBash(source: string): ParseOutcome {
  if (!parser) return { kind: 'unavailable' };
  parses++;
  deadline = performance.now() + parseTimeoutMs;
  timedOut = false;
  const tree = parser.parse(source, null, { progressCallback: pastDeadline });
  if (timedOut || !tree) {
    tree?.delete();
    parser.reset();
    return { kind: 'timeout' };
  }
  return { kind: 'tree', tree };
}

/** The outcome of {@link parseBashSyntax}. */
export type SyntaxOutcome =
  | { kind: 'root'; root: SyntaxNode }
  | { kind: 'syntax-error' }
  | { kind: 'too-large' }
  | { kind: 'unavailable' }
  | { kind: 'timeout' };

/**
 * Parses `source` with a time budget and copies the tree into {@link SyntaxNode}s, unless it has a
 * syntax error or more than `maxNodes` nodes; tree-sitter's tree is freed either way. Counts as one
 * parse. A line that is one plain command is read without the grammar (`simpleCommandSyntax`);
 * any other goes through the grammar module's functions directly when it can (wasm-tree.ts), else
 * through web-tree-sitter's classes. All three give the same tree.
 */
export function parseBashSyntax(source: string, maxNodes: number): SyntaxOutcome {
  if (!direct) return parseBashSyntaxWithClasses(source, maxNodes);
  parses++;
  // A line that is one plain command gets the grammar's tree without the grammar (syntax-node.ts).
  const simple = simpleCommandSyntax(source, maxNodes);
  if (simple) return { kind: 'root', root: simple };
  deadline = performance.now() + parseTimeoutMs;
  timedOut = false;
  const parsed = direct.parse(source, pastDeadline, maxNodes);
  switch (parsed.kind) {
    case 'cancelled':
      return { kind: 'timeout' };
    case 'tree':
      if (!timedOut) return { kind: 'root', root: direct.copyAndDelete(parsed.tree, source) };
      direct.deleteTree(parsed.tree);
      return { kind: 'timeout' };
    default:
      return parsed;
  }
}

/** {@link parseBashSyntax} through web-tree-sitter's `Tree`, `Node` and `TreeCursor`. */
export function parseBashSyntaxWithClasses(source: string, maxNodes: number): SyntaxOutcome {
  const outcome = parseBash(source);
  if (outcome.kind !== 'tree') return outcome;
  const tree = outcome.tree;
  try {
    const root = tree.rootNode;
    if (root.hasError) return { kind: 'syntax-error' };
    if (root.descendantCount > maxNodes) return { kind: 'too-large' };
    return { kind: 'root', root: copySyntaxTree(tree, source) };
  } finally {
    tree.delete();
  }
}

/** The direct path of {@link parseBashSyntax}, for tests that compare it with the classes' path. */
export function directShellTreeAccess(): DirectTreeAccess | undefined {
  return direct;
}
