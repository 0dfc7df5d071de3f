import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * What a sandboxed program needs to read from under the host's /tmp, which the sandbox's private
 * /tmp hides: its own files, never the whole host /tmp. A program named on the command line (the
 * command, found on PATH when bare, and every argument naming an existing file) brings its
 * package — the nearest folder above it holding a package manifest, else its own folder — and the
 * `node_modules` folders Node would search above that package; the working directory comes as
 * itself. Links are followed both ways: the path as named (a virtualenv's `bin/python`) and where
 * it leads.
 */
export function tmpFootprint(
  command: string,
  args: readonly string[],
  cwd: string,
  path = process.env['PATH'] ?? '',
): string[] {
  const found = new Set<string>();
  const add = (entry: string) => {
    if (isBelowTmp(entry)) found.add(entry);
  };
  const programs = [findProgram(command, cwd, path), ...args.map((word) => namedFile(word, cwd))];
  for (const program of programs) {
    if (!program) continue;
    for (const spelling of new Set([program, realPath(program)])) {
      if (!isBelowTmp(spelling)) continue;
      const root = packageRoot(spelling);
      add(root ?? spelling);
      for (const modules of enclosingNodeModules(root ?? dirname(spelling))) add(modules);
    }
  }
  add(realPath(cwd));
  return [...found].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

/** Files that mark the root of a program's package (Node, Python, Deno). */
const manifestNames = ['package.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'deno.json', 'deno.jsonc'];

/** True for paths strictly below /tmp (never /tmp itself). */
function isBelowTmp(path: string): boolean {
  return path.startsWith('/tmp/') && path.length > '/tmp/'.length;
}

/** The nearest folder strictly below /tmp, from the file's own folder up, holding a manifest. */
function packageRoot(file: string): string | undefined {
  const start = isDirectory(file) ? file : dirname(file);
  for (let folder = start; isBelowTmp(folder); folder = dirname(folder)) {
    if (manifestNames.some((name) => existsSync(join(folder, name)))) return folder;
  }
  return isBelowTmp(start) ? start : undefined;
}

/** `node_modules` folders in `folder`'s ancestors below /tmp, which Node searches for packages. */
function enclosingNodeModules(folder: string): string[] {
  const found: string[] = [];
  for (let parent = dirname(folder); isBelowTmp(parent); parent = dirname(parent)) {
    if (isDirectory(join(parent, 'node_modules'))) found.push(join(parent, 'node_modules'));
  }
  return found;
}

/** The command as the process would find it: a path (relative to `cwd`) or the first match on PATH. */
function findProgram(command: string, cwd: string, path: string): string | undefined {
  if (command.includes('/')) return namedFile(command, cwd);
  for (const folder of path.split(delimiter)) {
    if (!isAbsolute(folder)) continue;
    const candidate = join(folder, command);
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

/** `word` as an existing file or folder (relative words against `cwd`), else undefined. */
function namedFile(word: string, cwd: string): string | undefined {
  if (word === '' || word.startsWith('-')) return undefined;
  const candidate = isAbsolute(word) ? word : resolve(cwd, word);
  return existsSync(candidate) ? candidate : undefined;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
