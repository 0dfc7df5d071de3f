#!/usr/bin/env node
// Runs the built CLI (dist/cli/bundle.js, made by `npm run build`, which `npm ci` runs in a clone through the
// `prepare` script). In a clone whose sources changed after the last build, the TypeScript sources
// run through tsx instead (a development dependency), so a stale build is never used.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli', 'bundle.js');
const sources = join(root, 'src');

/** The newest modification time under a directory (the source tree: a few hundred files). */
function newestChange(directory) {
  let newest = statSync(directory).mtimeMs;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const stale = existsSync(sources) && (!existsSync(built) || newestChange(sources) > statSync(built).mtimeMs);
if (stale) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(sources, 'cli', 'main.ts')).href);
} else {
  await import(pathToFileURL(built).href);
}
