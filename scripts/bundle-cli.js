#!/usr/bin/env node
// Bundles the CLI (dist/cli/bundle.js, plus dist/cli/lazy-*.js chunks for what commands load on use):
// starting a command then reads two modules instead of several hundred, which is most of a short
// command's time. Packages with native code, WebAssembly located at run time, or that are loaded only
// on use stay external.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// zod's messages in every language (about 60 locale files, a third of zod's bundled size) would be
// parsed at every start; efferent only ever uses the English ones, which zod installs by default.
// In both bundles, zod's `locales` namespace holds English alone.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(args.resolveDir, '..', 'locales', 'en.js'), namespace: 'zod-locales' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};
const cliDirectory = join(root, 'dist', 'cli');
// Chunks of an earlier build (their names carry a content hash) would pile up.
mkdirSync(cliDirectory, { recursive: true });
for (const name of readdirSync(cliDirectory))
  if (name.startsWith('lazy-')) rmSync(join(cliDirectory, name), { force: true });
await build({
  entryPoints: { bundle: join(root, 'src', 'cli', 'main.ts') },
  outdir: cliDirectory,
  // What the sources import with `await import()` (MCP, providers, the REPL, ...) becomes a chunk of
  // its own, read only when a command needs it; so do the packages those chunks import: a package
  // imported anywhere in one file would otherwise be loaded at every start.
  splitting: true,
  chunkNames: 'lazy-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
  external: [
    'sharp',
    'web-tree-sitter',
    'tree-sitter-bash',
    '@vscode/ripgrep',
    'unpdf',
    'file-type',
    'openai',
    '@anthropic-ai/sdk',
    '@modelcontextprotocol/sdk',
  ],
  // Bundled CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as efferentCreateRequire } from 'node:module';\nconst require = efferentCreateRequire(import.meta.url);" },
});

// The library as two entry points over shared chunks (dist/bundle/): importing efferent reads a few
// modules instead of several hundred, and efferent/testing shares its classes (EfferentError, …)
// with efferent. Every package stays external but zod, picomatch, ignore and lru-cache, which are
// bundled: zod as a package is about a hundred modules to resolve and load at import, most of the
// import's time; picomatch and ignore are CommonJS, which Node scans for export names before an ES
// module may import them (tens of milliseconds); all four are small pure JavaScript. zod keeps its registry of
// descriptions on globalThis and checks instances by brand, so a caller's own zod schemas work with it.
// Types come from tsc's declarations in dist/ (which name the zod package, still a dependency).
const bundledPackages = new Set(['zod', 'picomatch', 'ignore', 'lru-cache']);
rmSync(join(root, 'dist', 'bundle'), { recursive: true, force: true });
const otherPackagesExternal = {
  name: 'packages-external-but-bundled-ones',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      bundledPackages.has(args.path.split('/')[0]) ? undefined : { path: args.path, external: true },
    );
  },
};
await build({
  entryPoints: {
    index: join(root, 'src', 'index.ts'),
    'testing/index': join(root, 'src', 'testing', 'index.ts'),
  },
  outdir: join(root, 'dist', 'bundle'),
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [zodEnglishOnly, otherPackagesExternal],
  logLevel: 'warning',
});

// The bash grammar is the one data file the parser loads at run time.
mkdirSync(join(root, 'dist', 'shell', 'grammar'), { recursive: true });
copyFileSync(
  join(root, 'src', 'shell', 'grammar', 'tree-sitter-bash.wasm'),
  join(root, 'dist', 'shell', 'grammar', 'tree-sitter-bash.wasm'),
);
