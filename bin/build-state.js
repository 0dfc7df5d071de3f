// Whether the built CLI bundle is current: shared by bin/efferent.js (which runs it, or the sources
// when they changed since) and bench/startup.ts (which says which one it measured).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The newest modification time under a directory (the source tree: a few hundred files). Test files
 * are not part of the bundle, so they are not stat'ed: a quarter fewer stats at every start.
 */
function newestChange(directory) {
  let newest = statSync(directory).mtimeMs;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name.endsWith('.test.ts')) continue;
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The package's CLI bundle, and whether it is current (built, with no source changed after it). */
export function buildState(root) {
  const bundle = join(root, 'dist', 'cli', 'bundle.cjs');
  const sources = join(root, 'src');
  const current =
    existsSync(bundle) && (!existsSync(sources) || newestChange(sources) <= statSync(bundle).mtimeMs);
  return { bundle, sources, current };
}
