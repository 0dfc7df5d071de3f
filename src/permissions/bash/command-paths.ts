import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import { isDynamicWord } from './shell-contract.ts';

/**
 * Words of a subcommand that may name files it reads. The engine does not know every program's
 * syntax, so it treats every argument as a possible path, including the value of `--flag=value`
 * and text after an embedded `/` (`sed 'r/etc/passwd'`, `-o/tmp/x`). Over-matching only makes a
 * deny rule fire more often; it never lets a call through.
 */

/**
 * A word that may be a path, or a word whose path cannot be known before the command runs.
 * `primary` candidates are the words themselves (or a `--flag=value` value); the others are
 * fragments tried only against deny rules.
 */
export type PathCandidate = { path: string; primary: boolean } | { unknown: string };

/** Input redirections read a file. */
const readingRedirects = new Set(['<', '<>', '<&']);

/** Expands the spellings of the home directory bash would expand; anything else dynamic stays unknown. */
function expandHome(word: string, home: string): string | undefined {
  const expanded = word.replace(/^(?:\$HOME|\$\{HOME\})(?=\/|$)/, home);
  return isDynamicWord(expanded) ? undefined : expanded;
}

/** Every plausible path a subcommand reads. */
export function readPathCandidates(subcommand: AnalyzedSubcommandLike, home: string): PathCandidate[] {
  const words = [
    ...subcommand.argv.slice(1),
    ...subcommand.redirects
      .filter((redirect) => readingRedirects.has(redirect.operator))
      .map((redirect) => redirect.target),
  ];
  const candidates: PathCandidate[] = [];
  for (const word of words) {
    if (word === '' || word === '-' || word === '--') continue;
    const expanded = expandHome(word, home);
    if (expanded === undefined) {
      candidates.push({ unknown: word });
      continue;
    }
    const primary = new Set<string>();
    const fragments = new Set<string>();
    if (!expanded.startsWith('-')) primary.add(expanded);
    const equals = expanded.indexOf('=');
    if (equals !== -1) (expanded.startsWith('--') ? primary : fragments).add(expanded.slice(equals + 1));
    const slash = expanded.indexOf('/');
    if (slash > 0) fragments.add(expanded.slice(slash));
    const colon = expanded.indexOf(':');
    if (colon > 0 && !expanded.slice(0, colon).includes('/') && !expanded.includes('://'))
      fragments.add(expanded.slice(colon + 1));
    const tilde = expanded.indexOf('~');
    if (tilde > 0) fragments.add(expanded.slice(tilde));
    for (const path of primary) if (path !== '') candidates.push({ path, primary: true });
    for (const path of fragments)
      if (path !== '' && !primary.has(path)) candidates.push({ path, primary: false });
  }
  return candidates;
}

/** Targets that are not files in the workspace sense and may always be written. */
export const harmlessWriteTargets = new Set([
  '/dev/null',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/fd/1',
  '/dev/fd/2',
  '/dev/tty',
]);

/** Programs that look at names and metadata only, never at the contents of a directory's files. */
export const namesOnlyCommands = new Set([
  'ls',
  'stat',
  'du',
  'tree',
  'find',
  'cd',
  'pushd',
  'file',
  'mkdir',
  'touch',
  'pwd',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'test',
  '[',
  'echo',
  'printf',
]);
