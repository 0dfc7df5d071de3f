import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Options for {@link walkFiles}. */
export interface WalkOptions {
  /** The directory to walk; yielded paths are relative to it, with `/` separators. */
  root: string;
  /** Honour `.gitignore`, `.ignore` and `.rgignore` files, as ripgrep does. */
  respectIgnoreFiles: boolean;
  /** Directory names never entered (VCS metadata, node_modules…), at any depth. */
  excludeDirectories: readonly string[];
  signal?: AbortSignal;
}

const ignoreFileNames = ['.gitignore', '.ignore', '.rgignore'];

interface Scope {
  /** Path of the directory that holds the rules, relative to the root ('' for the root). */
  base: string;
  rules: Ignore;
}

async function loadScope(directory: string, base: string): Promise<Scope | undefined> {
  const texts = await Promise.all(
    ignoreFileNames.map((name) => readFile(join(directory, name), 'utf8').catch(() => '')),
  );
  const text = texts.join('\n');
  return text.trim() === '' ? undefined : { base, rules: ignore().add(text) };
}

function isIgnored(scopes: readonly Scope[], relativePath: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const scope of scopes) {
    const local = scope.base === '' ? relativePath : relativePath.slice(scope.base.length + 1);
    const result = scope.rules.test(isDirectory ? `${local}/` : local);
    // Deeper files override shallower ones, as in git.
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Walks a directory tree in sorted order (the order `rg --sort path` uses), yielding file paths
 * relative to the root. The pure-JS stand-in for `rg --files` when no ripgrep binary is available.
 * Symlinks are not followed, matching ripgrep's default.
 */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<string> {
  const excluded = new Set(options.excludeDirectories);
  async function* visit(
    directory: string,
    relative: string,
    scopes: readonly Scope[],
  ): AsyncGenerator<string> {
    options.signal?.throwIfAborted();
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return; // unreadable directories are skipped, as ripgrep does
    }
    let active = scopes;
    if (options.respectIgnoreFiles) {
      const scope = await loadScope(directory, relative);
      if (scope) active = [...scopes, scope];
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (excluded.has(entry.name)) continue;
        if (options.respectIgnoreFiles && isIgnored(active, path, true)) continue;
        yield* visit(join(directory, entry.name), path, active);
      } else if (entry.isFile()) {
        if (options.respectIgnoreFiles && isIgnored(active, path, false)) continue;
        yield path;
      }
    }
  }
  yield* visit(options.root, '', []);
}
