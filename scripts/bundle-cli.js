#!/usr/bin/env node
// Bundles the CLI (dist/cli/bundle.cjs, one script that bin/efferent.js runs with a V8 code cache):
// starting a command then reads one file instead of several hundred modules, which is most of a short
// command's time. Packages with native code, WebAssembly located at run time, or that are loaded only
// on use stay external.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transformSync } from 'esbuild';

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
// zod as efferent uses it. `import { z } from 'zod'` gives the whole namespace, which esbuild must keep
// whole: dates, coercion, `z.compile`'s code generator, `fromJSONSchema`, ... half of zod's bundled
// size, parsed and evaluated at every import for nothing. Our sources' `import { z } from 'zod'` gets
// an object holding the runtime members they name (`z.object`, `z.toJSONSchema`, ...), found in their
// code with the types removed, so esbuild drops the rest of zod. Schemas, their methods and a caller's
// own zod schemas work as before: nothing of zod changes, only what is reachable. Any other import
// from 'zod', or a name zod does not export, fails the build.
const sourceDirectory = join(root, 'src');

function sourceFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The `z.name` members our sources use at run time (`z.core.$ZodIssue` in a type names nothing). */
function zodMembersUsed(zodNamespace) {
  const names = new Set();
  for (const path of sourceFiles(sourceDirectory)) {
    const code = transformSync(readFileSync(path, 'utf8'), { loader: 'ts', sourcefile: path }).code;
    const imports = code.match(/^import[^;]*from "zod";$/gm) ?? [];
    if (imports.length === 0) continue;
    if (imports.some((statement) => statement !== 'import { z } from "zod";'))
      throw new Error(
        `${path}: the bundles give sources zod's \`z\` alone; write import { z } from 'zod' and z.name.`,
      );
    for (const [, name] of code.matchAll(/\bz\.([A-Za-z_$][\w$]*)/g)) {
      if (!(name in zodNamespace)) throw new Error(`${path}: z.${name} is not part of zod.`);
      names.add(name);
    }
  }
  return [...names].sort();
}

const zodAsUsed = {
  name: 'zod-as-used',
  setup(builder) {
    builder.onResolve({ filter: /^zod$/ }, (args) =>
      args.importer.startsWith(sourceDirectory) ? { path: 'zod', namespace: 'zod-as-used' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-as-used' }, async () => {
      const members = zodMembersUsed((await import('zod')).z);
      const imported = members.map((name) => `${name} as zod_${name}`).join(', ');
      const fields = members.map((name) => `${name}: zod_${name}`).join(', ');
      return {
        contents: `import { ${imported} } from 'zod';\nexport const z = { ${fields} };\n`,
        resolveDir: root,
      };
    });
  },
};

// Node decodes a module's file as UTF-8 and V8 keeps and scans the source as one-byte text only when
// every character is ASCII: one `…` in a comment made the library's 1.5 MB twice the memory and about
// 10 ms slower to decode and parse at every import. esbuild escapes strings but keeps comments and
// regular expressions as written; every other character becomes a `\uXXXX` escape (in strings,
// regular expressions and template literals it means the same character; in comments, nothing).
function asciiOnly(text) {
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
// The minified library keeps no comments, but a source map: there the escapes are made in our sources
// as esbuild reads them (a map's columns would be wrong after escaping its output), and the build
// checks that the output is ASCII.
const sourcesAsciiOnly = {
  name: 'sources-ascii-only',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) =>
      args.path.startsWith(sourceDirectory)
        ? { contents: asciiOnly(readFileSync(args.path, 'utf8')), loader: 'ts' }
        : undefined,
    );
  },
};

const cliDirectory = join(root, 'dist', 'cli');
// Files of earlier builds: the ES-module bundle and its chunks the CLI was once split into.
mkdirSync(cliDirectory, { recursive: true });
for (const name of readdirSync(cliDirectory))
  if (name.startsWith('lazy-') || name === 'bundle.js' || name.startsWith('bundle.cjs'))
    rmSync(join(cliDirectory, name), { force: true });
// One CommonJS script, which bin/efferent.js compiles through `vm.Script` with a V8 code cache (Node 20
// has no compile cache for ES modules): a start then deserialises the code it ran before instead of
// parsing the bundle. Code only reached through `await import()` (MCP, providers, the REPL) stays
// inside functions and is compiled only if a command calls it. `import.meta.url` becomes the bundle's
// own URL, and external packages loaded on use keep going through the host's `import()` (a script
// compiled from cached data cannot call `import()` itself): bin/efferent.js passes that in.
const built = await build({
  stdin: {
    contents: "import { main } from './program.ts';\nvoid main();\n",
    resolveDir: join(root, 'src', 'cli'),
    sourcefile: 'cli-entry.ts',
    loader: 'ts',
  },
  outfile: join(cliDirectory, 'bundle.cjs'),
  write: false,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  plugins: [zodEnglishOnly, zodAsUsed],
  define: { 'import.meta.url': 'efferentBundleUrl' },
  banner: { js: "var efferentBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
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
});
let cliSource = asciiOnly(built.outputFiles[0]?.text ?? '').replace(
  /\bimport\(("[^"\n]+")\)/g,
  (_, specifier) => `efferentImport(${specifier})`,
);
if (/\bimport\(/.test(cliSource.replace(/\/\/.*$/gm, '')))
  throw new Error('The CLI bundle calls import() with something other than a package name; bin/efferent.js cannot pass that through.');
// The first line names the build, so a code cache made for another build is never used with this one.
const buildHash = createHash('sha256').update(cliSource).digest('hex').slice(0, 24);
cliSource = `// efferent-cli ${buildHash}\n${cliSource}`;
writeFileSync(join(cliDirectory, 'bundle.cjs'), cliSource);

// The library as two entry points over shared chunks (dist/bundle/): importing efferent reads a few
// modules instead of several hundred, and efferent/testing shares its classes (EfferentError, …)
// with efferent. Every package stays external but zod, picomatch, ignore and lru-cache, which are
// bundled: zod as a package is about a hundred modules to resolve and load at import, most of the
// import's time; picomatch and ignore are CommonJS, which Node scans for export names before an ES
// module may import them (tens of milliseconds); all four are small pure JavaScript. zod keeps its registry of
// descriptions on globalThis and checks instances by brand, so a caller's own zod schemas work with it.
// Types come from tsc's declarations in dist/ (which name the zod package, still a dependency).
// Minified (whitespace and syntax; names are kept, so stack traces still name functions), because
// parsing the bundle is the largest part of an import and minified text parses in about four fifths
// of the time; each file has a source map beside it, with the sources in it (`node
// --enable-source-maps` shows the TypeScript lines).
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
const library = await build({
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
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  plugins: [zodEnglishOnly, zodAsUsed, sourcesAsciiOnly, otherPackagesExternal],
  logLevel: 'warning',
  write: false,
});
for (const file of library.outputFiles) {
  if (file.path.endsWith('.js') && asciiOnly(file.text) !== file.text)
    throw new Error(`${file.path} has characters outside ASCII; escape them where they come from.`);
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.contents);
}

// The bash grammar is the one data file the parser loads at run time.
mkdirSync(join(root, 'dist', 'shell', 'grammar'), { recursive: true });
copyFileSync(
  join(root, 'src', 'shell', 'grammar', 'tree-sitter-bash.wasm'),
  join(root, 'dist', 'shell', 'grammar', 'tree-sitter-bash.wasm'),
);
