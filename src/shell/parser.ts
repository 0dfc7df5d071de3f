import { createRequire } from 'node:module';
import type { Parser, Tree } from 'web-tree-sitter';

/** Parses slower than this are treated as adversarial input. */
const parseTimeoutMs = 500;

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads web-tree-sitter and the tree-sitter-bash grammar from node_modules (no network).
 * Idempotent: concurrent and repeated calls share one load.
 */
export function loadShellParser(): Promise<void> {
  if (parser) return Promise.resolve();
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    // Loaded here, not at start-up: commands that never analyse a shell command don't pay for it.
    const { Language, Parser } = await import('web-tree-sitter');
    await Parser.init();
    const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const instance = new Parser();
    instance.setLanguage(language);
    parser = instance;
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
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

/** Parses `source` with a time budget; synchronous because the grammar is already loaded. */
export function parseBash(source: string): ParseOutcome {
  if (!parser) return { kind: 'unavailable' };
  parses++;
  const deadline = performance.now() + parseTimeoutMs;
  let timedOut = false;
  // The progress callback cancels the parse when it returns true (web-tree-sitter contract).
  const tree = parser.parse(source, null, {
    progressCallback: () => {
      if (performance.now() > deadline) timedOut = true;
      return timedOut;
    },
  });
  if (timedOut || !tree) {
    tree?.delete();
    parser.reset();
    return { kind: 'timeout' };
  }
  return { kind: 'tree', tree };
}
