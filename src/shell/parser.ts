import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Parser, Tree } from 'web-tree-sitter';

/** Parses slower than this are treated as adversarial input. */
const parseTimeoutMs = 500;

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads web-tree-sitter and the bash grammar shipped with efferent (no network).
 * Idempotent: concurrent and repeated calls share one load.
 */
export function loadShellParser(): Promise<void> {
  if (parser) return Promise.resolve();
  loading ??= (async () => {
    // Loaded here, not at start-up: commands that never analyse a shell command don't pay for it.
    const { Language, Parser } = await import('web-tree-sitter');
    await Parser.init();
    const language = await Language.load(grammarPath());
    const instance = new Parser();
    instance.setLanguage(language);
    parser = instance;
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
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
