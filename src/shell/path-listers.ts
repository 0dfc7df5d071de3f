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
  return operands.length > 1 || directory === undefined ? undefined : belowDirectory(directory);
}

/** A relative directory that stays below the one it is resolved in, without `.` or `..` parts. */
function belowDirectory(word: string): string | undefined {
  if (!plainRelative.test(word)) return undefined;
  if (word.split('/').some((part) => part === '..' || part === '.')) return undefined;
  return word.replace(/\/$/, '');
}

/** The glob-shaped word that stands for "paths below `directory`". */
export function listedPathsWord(directory: string): string {
  return `${directory}/**`;
}

/** `find` tests and actions that only choose which paths it prints, with the number of values each takes. */
const findSelectors = new Map<string, number>([
  ['-name', 1],
  ['-iname', 1],
  ['-path', 1],
  ['-ipath', 1],
  ['-wholename', 1],
  ['-iwholename', 1],
  ['-regex', 1],
  ['-iregex', 1],
  ['-type', 1],
  ['-xtype', 1],
  ['-maxdepth', 1],
  ['-mindepth', 1],
  ['-size', 1],
  ['-mtime', 1],
  ['-mmin', 1],
  ['-ctime', 1],
  ['-cmin', 1],
  ['-atime', 1],
  ['-amin', 1],
  ['-newer', 1],
  ['-perm', 1],
  ['-empty', 0],
  ['-readable', 0],
  ['-writable', 0],
  ['-executable', 0],
  ['-prune', 0],
  ['-print', 0],
  ['-print0', 0],
  ['-not', 0],
  ['!', 0],
  ['(', 0],
  [')', 0],
  ['-o', 0],
  ['-or', 0],
  ['-a', 0],
  ['-and', 0],
  ['-true', 0],
  ['-false', 0],
]);

/** A redirect a lister may carry without changing what it prints: its errors thrown away. */
const quietErrors = (redirect: SimpleCommand['redirects'][number]) =>
  redirect.fd === 2 && redirect.operator === '>' && redirect.target === '/dev/null';

/**
 * The directory (relative, `.` for the current one) whose paths a command prints, one per line, when
 * it is piped into another (`find src -name '*.ts' | xargs grep x`). Besides `git ls-files`: `find` with
 * one plain start directory and only tests that choose paths (no `-L`, `-follow`, `-printf`, `-exec`),
 * `ls` and `ls -1` of the current directory, `rg --files` with at most one plain directory. The names
 * are paths below that directory as written, which is what the engine then checks on disk
 * (docs/decisions/security-indirect.md).
 */
export function pipedDirectory(command: SimpleCommand): string | undefined {
  const listed = listedDirectory(command);
  if (listed !== undefined) return listed;
  const [program, ...args] = command.argv;
  if (command.envVars.length > 0 || !command.redirects.every(quietErrors)) return undefined;
  if ((command.argKinds ?? []).some((kind) => kind !== 'literal')) return undefined;
  if (program === 'ls') return args.every((arg) => arg === '-1') ? '.' : undefined;
  if (program === 'rg') {
    const [flag, directory, ...rest] = args;
    if (flag !== '--files' || rest.length > 0) return undefined;
    return directory === undefined ? '.' : plainDirectory(directory);
  }
  if (program !== 'find') return undefined;
  const start = args[0] !== undefined && !/^[-!(]/.test(args[0]) ? args[0] : undefined;
  const expression = start === undefined ? args : args.slice(1);
  for (let index = 0; index < expression.length; index++) {
    const arity = findSelectors.get(expression[index] ?? '');
    if (arity === undefined) return undefined;
    index += arity;
  }
  if (start === undefined || start === '.' || start === './') return '.';
  return plainDirectory(start);
}

/** {@link belowDirectory}, also accepting the `./` that `find ./src` prints its paths with. */
function plainDirectory(written: string): string | undefined {
  const word = written.startsWith('./') ? written.slice(2) : written;
  return word === '' ? undefined : belowDirectory(word);
}
