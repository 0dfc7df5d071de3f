#!/usr/bin/env node
// Runs the built CLI (dist/cli/bundle.cjs, with a V8 code cache; made by `npm run build`, which `npm ci` runs in a clone
// through the `prepare` script). In a clone whose sources changed after the last build, the
// TypeScript sources run through tsx instead (a development dependency), so a stale build is never used.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { buildState } from './build-state.js';

// WebAssembly (the bash grammar) compiled by the baseline compiler only: V8's optimising tier would
// recompile the 1.3 MB grammar on background threads, and a process does not exit before that work
// ends (about a CPU-second: a `check Bash` took seconds to return). A command's few parses do not
// need optimised code. Set before any module is compiled; it changes nothing else.
setFlagsFromString('--liftoff-only');
// And each grammar function compiled when first called, not all at instantiation: a command's parses
// run a small part of the grammar's code.
setFlagsFromString('--wasm-lazy-compilation');

const { bundle, sources, current } = buildState(join(dirname(fileURLToPath(import.meta.url)), '..'));
if (current) {
  const { runBundle } = await import('./run-bundle.js');
  runBundle(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(sources, 'cli', 'main.ts')).href);
}
