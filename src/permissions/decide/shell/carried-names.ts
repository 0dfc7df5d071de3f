import { type Dirent, readdirSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import picomatch from 'picomatch';
import { protectedPathReason } from '../../paths/protected-paths.ts';
import type { Workspace } from '../workspace.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';

/**
 * Names a copy or move writes that its words do not spell. `cp x DIR` writes `DIR/x`; `cp -r src/. .`
 * writes every name under `src` (a repository's `template/.envrc`, `template/.git/config`); a glob
 * (`mv template/* .`) writes every name it matches. The destination's own path is judged elsewhere;
 * this finds the protected names the sources carry into it, looking at the disk.
 */

/** Programs whose sources arrive in the destination under their own names. */
const carriers = new Set(['cp', 'mv', 'install', 'ln', 'rsync', 'scp']);

/** How much of a source tree is looked at before the answer becomes "could not check". */
export const carriedNameLimits = { entries: 5_000, depth: 24 } as const;

/** A protected name a copy or move carries, or why the names could not all be checked. */
export type CarriedName = { path: string; reason: string } | { unchecked: string };

/** The `-t DIR` / `--target-directory=DIR` operand and its index (-1 when attached to the option). */
function targetDirectory(argv: readonly string[]): { word: string; index: number } | undefined {
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (word === '--') return undefined;
    const long =
      /^--ta(?:r(?:g(?:e(?:t(?:-(?:d(?:i(?:r(?:e(?:c(?:t(?:o(?:r(?:y)?)?)?)?)?)?)?)?)?)?)?)?)?)?(=(.*))?$/.exec(
        word,
      );
    if (long)
      return long[2] !== undefined
        ? { word: long[2], index: -1 }
        : { word: argv[index + 1] ?? '', index: index + 1 };
    const short = /^-[A-Za-z]*t(.*)$/.exec(word);
    if (short && !word.startsWith('--'))
      return short[1] ? { word: short[1], index: -1 } : { word: argv[index + 1] ?? '', index: index + 1 };
  }
  return undefined;
}

/** Whether the program copies directories whole (`mv` always does, `cp`/`rsync` with -r/-R/-a). */
function copiesTrees(argv: readonly string[]): boolean {
  const program = argv[0];
  if (program === 'mv') return true;
  return argv.some(
    (word) =>
      /^--(?:recursive|archive)$/.test(word) ||
      (/^-[^-]/.test(word) && /[rRa]/.test(word.replace(/[tSfb].*$/, ''))),
  );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function entriesOf(directory: string): Dirent[] {
  try {
    return readdirSync(directory, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Paths on disk a glob word matches (dot files and any case included, as the command may set them). */
export function globMatches(word: string, cwd: string): string[] {
  const absolute = posix.isAbsolute(word) ? word : `${cwd}/${word}`;
  const segments = absolute.split('/').filter((segment) => segment !== '');
  let current = ['/'];
  for (const segment of segments) {
    if (!/[*?[]/.test(segment)) {
      current = current.map((base) => posix.join(base, segment));
      continue;
    }
    const next: string[] = [];
    // bash negates a bracket with `!` as well as `^`; picomatch only with `^`.
    const pattern = segment.replace(/\[!/g, '[^');
    for (const base of current)
      for (const entry of entriesOf(base))
        if (picomatch.isMatch(entry.name, pattern, { dot: true, nocase: true, posix: true }))
          next.push(posix.join(base, entry.name));
    current = next;
    if (current.length > carriedNameLimits.entries) return current;
  }
  return current;
}

/** The first protected path below `directory`, spelled under `prefix`, or a note that the bound was hit. */
function protectedBelow(directory: string, prefix: string): CarriedName | undefined {
  const queue: Array<{ path: string; spelled: string; depth: number }> = [
    { path: directory, spelled: prefix, depth: 0 },
  ];
  let seen = 0;
  while (queue.length > 0) {
    const current = queue.shift();
    if (current === undefined) break;
    for (const entry of entriesOf(current.path)) {
      seen++;
      if (seen > carriedNameLimits.entries || current.depth >= carriedNameLimits.depth)
        return { unchecked: `${prefix || directory} holds too many entries to check what it copies` };
      const spelled = current.spelled === '' ? entry.name : `${current.spelled}/${entry.name}`;
      const reason = protectedPathReason(spelled);
      if (reason) return { path: spelled, reason };
      if (entry.isDirectory())
        queue.push({ path: `${current.path}/${entry.name}`, spelled, depth: current.depth + 1 });
    }
  }
  return undefined;
}

/**
 * The first protected name a copy or move carries into its destination, for the programs whose
 * sources keep their names there. Undefined when it carries none, when the program is not one of
 * them, or when decisions are made without a disk.
 */
export function carriedProtectedName(
  subcommand: AnalyzedSubcommandLike,
  workspace: Workspace,
): CarriedName | undefined {
  const { argv } = subcommand;
  if (!carriers.has(argv[0] ?? '') || workspace.scanLinks === undefined) return undefined;
  const cwd = subcommand.cwd;
  if (cwd === null) return undefined;
  // `-t DIR` names the destination; otherwise it is the last operand (the analyser leaves
  // `writesTo` empty when a source is a pattern).
  const target = targetDirectory(argv);
  const operands = argv
    .slice(1)
    .filter((word, index) => !word.startsWith('-') && index + 1 !== target?.index);
  const last = operands.at(-1);
  const destinations = new Set([
    ...subcommand.writesTo,
    ...(target ? [target.word] : last !== undefined && operands.length > 1 ? [last] : []),
  ]);
  const trees = copiesTrees(argv);
  // A source keeps its own name only when it lands inside a directory (`cp a b` writes `b`).
  const intoDirectory = [...destinations].some(
    (destination) => destination.endsWith('/') || isDirectory(posix.resolve(cwd, destination)),
  );
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    const isDestination =
      index === target?.index || (destinations.has(word) && subcommand.argKinds?.[index] !== 'glob');
    if (word.startsWith('-') || isDestination || subcommand.argKinds?.[index] === 'dynamic') continue;
    const sources =
      subcommand.argKinds?.[index] === 'glob' ? globMatches(word, cwd) : [posix.resolve(cwd, word)];
    if (sources.length > carriedNameLimits.entries) return { unchecked: `what ${word} expands to` };
    for (const source of sources) {
      // `src/.` and `src/` (rsync) carry the directory's contents; `src` carries its own name too.
      const contentsOnly = /(?:^|\/)\.$/.test(word) || (argv[0] === 'rsync' && word.endsWith('/'));
      const name = contentsOnly ? '' : posix.basename(source);
      const own = name === '' || !intoDirectory ? undefined : protectedPathReason(name);
      if (own) return { path: name, reason: own };
      if (!trees || !isDirectory(source)) continue;
      const below = protectedBelow(source, name);
      if (below) return below;
    }
  }
  return undefined;
}
