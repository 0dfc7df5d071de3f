import type { SimpleCommand } from './types.ts';

/**
 * Substitutions whose output is a list of paths below the directory they run in, so that the
 * words they expand to can be judged like a glob below that directory (`wc -l $(git ls-files)`
 * reads files under `.`, as `wc -l ./**` would). Only `git ls-files` qualifies: it prints names
 * from the index relative to the current directory, never `..` or absolute names, unless a
 * pathspec reaches out (`..`, `:/`, `--full-name`), which is not accepted here.
 *
 * Like `git ls-files | xargs wc -l`, the names are split at blanks, so a repository can hold a
 * path whose second word is any path; that is the same exposure xargs has (docs/decisions).
 */

const listerOptions = new Set([
  '-c',
  '--cached',
  '-m',
  '--modified',
  '-o',
  '--others',
  '-d',
  '--deleted',
  '--exclude-standard',
]);

/** A plain relative path that stays below the directory it is resolved in. */
const plainRelative = /^(?![-:])[A-Za-z0-9_.@+-]+(?:\/[A-Za-z0-9_.@+-]+)*\/?$/;

/** The directory (relative, `.` for the current one) whose paths a substitution lists, if it is a lister. */
export function listedDirectory(command: SimpleCommand): string | undefined {
  const [program, subcommand, ...rest] = command.argv;
  if (program !== 'git' || subcommand !== 'ls-files') return undefined;
  if (command.envVars.length > 0 || command.redirects.length > 0) return undefined;
  if ((command.argKinds ?? []).some((kind) => kind !== 'literal')) return undefined;
  const operands: string[] = [];
  for (const word of rest) {
    if (listerOptions.has(word)) continue;
    if (word.startsWith('-')) return undefined;
    operands.push(word);
  }
  if (operands.length === 0) return '.';
  const [directory] = operands;
  if (operands.length > 1 || directory === undefined || !plainRelative.test(directory)) return undefined;
  if (directory.split('/').some((part) => part === '..' || part === '.')) return undefined;
  return directory.replace(/\/$/, '');
}

/** The glob-shaped word that stands for "paths below `directory`". */
export function listedPathsWord(directory: string): string {
  return `${directory}/**`;
}
