// Runs the CLI bundle (dist/cli/bundle.cjs) with a V8 code cache: the first run of a build saves the
// code V8 compiled for it, and later runs deserialise that instead of parsing and compiling the
// bundle again. Node 20 has no compile cache of its own for ES modules, hence a CommonJS script run
// through `vm.Script`.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * Where caches are kept: `EFFERENT_CACHE_DIR` when set; otherwise next to the bundle, or the user's
 * cache folder (`$XDG_CACHE_HOME/efferent`, else `~/.cache/efferent`) when the package's folder is
 * read-only.
 */
function cacheDirectories(bundle) {
  const configured = process.env['EFFERENT_CACHE_DIR'];
  if (configured) return [configured];
  const userCache = process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return [dirname(bundle), join(userCache, 'efferent')];
}

/**
 * The cache's file name: the build (the hash on the bundle's first line), Node's version and the
 * architecture. V8 also rejects data made by another V8 or with other flags.
 */
function cacheName(source) {
  const build = /^\/\/ efferent-cli ([0-9a-f]+)/.exec(source)?.[1] ?? `length-${source.length}`;
  return `bundle.cjs.${build}.${process.version}.${process.arch}.v8cache`;
}

function readCache(directories, name) {
  for (const directory of directories) {
    try {
      return readFileSync(join(directory, name));
    } catch {}
  }
  return undefined;
}

/** Written whole under a temporary name, then renamed: a reader never sees half a cache. */
function writeCache(directories, name, data) {
  for (const directory of directories) {
    const temporary = join(directory, `${name}.${process.pid}.tmp`);
    try {
      mkdirSync(directory, { recursive: true });
      writeFileSync(temporary, data);
      renameSync(temporary, join(directory, name));
      removeOtherCaches(directory, name);
      return;
    } catch {
      rmSync(temporary, { force: true });
    }
  }
}

/** Caches of earlier builds (or other Node versions) in `directory`: one rebuild leaves one file. */
function removeOtherCaches(directory, keep) {
  try {
    for (const entry of readdirSync(directory))
      if (entry !== keep && entry.startsWith('bundle.cjs.') && entry.endsWith('.v8cache'))
        rmSync(join(directory, entry), { force: true });
  } catch {}
}

/** Runs `bundle` (a CommonJS script) as the main program, with its code cache. */
export function runBundle(bundle) {
  const source = readFileSync(bundle, 'utf8');
  const directories = cacheDirectories(bundle);
  const name = cacheName(source);
  const cachedData = readCache(directories, name);
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname, efferentImport) {${source}\n})`,
    { filename: bundle, cachedData },
  );
  if (!cachedData || script.cachedDataRejected) {
    // Saved at exit, so the cache holds the functions this run compiled, not only the outer script.
    process.once('exit', () => writeCache(directories, name, script.createCachedData()));
  }
  const module = { exports: {} };
  script.runInThisContext()(
    module.exports,
    createRequire(bundle),
    module,
    bundle,
    dirname(bundle),
    (specifier) => import(specifier),
  );
}
