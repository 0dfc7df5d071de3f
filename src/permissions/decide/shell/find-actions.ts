import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { protectedPathReason } from '../../paths/protected-paths.ts';
import { globMatches } from './protected-names.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';

/**
 * `find` changes the files its expression matches, not the words it is given: `find . -name
 * '*.json' -exec sed -i s/deny/allow/ {} +` rewrites `.claude/settings.json`, `find . -name
 * pre-commit -exec chmod +x {} +` arms a hook, `find . -name settings.json -delete` removes one, and
 * none of them names a protected path. {@link findReachesProtectedEntry} walks the starting points
 * (breadth first, bounded) and evaluates the expression's name, path and type tests on every
 * protected entry it meets; a test it does not model counts as "may match".
 */

/** Entries looked at before giving up (the nearest ones first). */
const walkLimit = 5_000;

/** Programs an `-exec` may run without changing the file it is given. */
const readingPrograms = new Set([
  'cat',
  'head',
  'tail',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'wc',
  'ls',
  'stat',
  'file',
  'echo',
  'printf',
  'test',
  '[',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'cksum',
  'du',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'diff',
  'cmp',
  'jq',
  'true',
]);

type Maybe = boolean | 'maybe';
const not = (value: Maybe): Maybe => (value === 'maybe' ? 'maybe' : !value);
const and = (a: Maybe, b: Maybe): Maybe =>
  a === false || b === false ? false : a === true && b === true ? true : 'maybe';
const or = (a: Maybe, b: Maybe): Maybe =>
  a === true || b === true ? true : a === false && b === false ? false : 'maybe';

interface Entry {
  /** As find prints it: the starting point joined with the path below it. */
  shown: string;
  name: string;
  kind: 'd' | 'f' | 'l';
}

/** find's -name pattern on a name (no special leading-dot rule, unlike the shell), case folded. */
const nameMatches = (pattern: string, name: string): boolean =>
  globMatches(`x${pattern}`, `x${name.toLowerCase()}`);

/** What evaluating the expression on an entry gives: its value, and whether a changing action ran. */
interface Outcome {
  value: Maybe;
  acts: Maybe;
}

/** A parsed expression, evaluated with find's short-circuit rules. */
type Expression = (entry: Entry) => Outcome;

const test =
  (value: (entry: Entry) => Maybe): Expression =>
  (entry) => ({ value: value(entry), acts: false });

/** Tests and actions taking one value that are not modelled: "may match". */
const valuedUnknown = new Set([
  '-newer',
  '-anewer',
  '-cnewer',
  '-size',
  '-perm',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-links',
  '-inum',
  '-samefile',
  '-regex',
  '-iregex',
  '-regextype',
  '-lname',
  '-ilname',
  '-fstype',
  '-used',
  '-context',
  '-printf',
  '-fprint',
  '-fprint0',
  '-fls',
  '-maxdepth',
  '-mindepth',
]);

/** Actions that print or steer the walk: true, and they change nothing. */
const quietActions = new Set([
  '-print',
  '-print0',
  '-ls',
  '-prune',
  '-quit',
  '-true',
  '-depth',
  '-nowarn',
  '-warn',
  '-mount',
  '-xdev',
  '-noleaf',
  '-daystart',
  '-follow',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
]);

class Parser {
  private at = 0;
  /** Set when an action that changes files is met. */
  writes = false;
  constructor(private readonly words: readonly string[]) {}

  parse(): Expression {
    if (this.at >= this.words.length) return test(() => true);
    return this.list();
  }

  private peek(): string | undefined {
    return this.words[this.at];
  }

  private list(): Expression {
    let left = this.alternation();
    while (this.peek() === ',') {
      this.at++;
      const right = this.alternation();
      const first = left;
      left = (entry) => {
        const a = first(entry);
        const b = right(entry);
        return { value: b.value, acts: or(a.acts, b.acts) };
      };
    }
    return left;
  }

  private alternation(): Expression {
    let left = this.conjunction();
    while (this.peek() === '-o' || this.peek() === '-or') {
      this.at++;
      const right = this.conjunction();
      const first = left;
      left = (entry) => {
        const a = first(entry);
        if (a.value === true) return a;
        const b = right(entry);
        if (a.value === false) return { value: b.value, acts: or(a.acts, b.acts) };
        return { value: or(a.value, b.value), acts: or(a.acts, and('maybe', b.acts)) };
      };
    }
    return left;
  }

  private conjunction(): Expression {
    let left = this.unary();
    for (;;) {
      const next = this.peek();
      if (next === undefined || next === ')' || next === ',' || next === '-o' || next === '-or') return left;
      if (next === '-a' || next === '-and') this.at++;
      const right = this.unary();
      const first = left;
      left = (entry) => {
        const a = first(entry);
        if (a.value === false) return a;
        const b = right(entry);
        if (a.value === true) return { value: b.value, acts: or(a.acts, b.acts) };
        return { value: and('maybe', b.value), acts: or(a.acts, and('maybe', b.acts)) };
      };
    }
  }

  private unary(): Expression {
    const word = this.peek();
    if (word === '!' || word === '-not') {
      this.at++;
      const inner = this.unary();
      return (entry) => {
        const a = inner(entry);
        return { value: not(a.value), acts: a.acts };
      };
    }
    if (word === '(') {
      this.at++;
      const inner = this.list();
      if (this.peek() === ')') this.at++;
      return inner;
    }
    return this.primary();
  }

  private primary(): Expression {
    const word = this.words[this.at++] ?? '';
    const value = (): string => this.words[this.at++] ?? '';
    switch (word) {
      case '-name':
      case '-iname': {
        const pattern = value();
        return test((entry) => nameMatches(pattern, entry.name));
      }
      case '-path':
      case '-ipath':
      case '-wholename':
      case '-iwholename': {
        const pattern = value();
        return test((entry) => nameMatches(pattern, entry.shown));
      }
      case '-type':
      case '-xtype': {
        const kinds = value().split(',');
        return test((entry) => (kinds.includes(entry.kind) ? true : entry.kind === 'l' ? 'maybe' : false));
      }
      case '-false':
        return test(() => false);
      case '-delete':
        this.writes = true;
        return () => ({ value: 'maybe', acts: true });
      case '-exec':
      case '-execdir':
      case '-ok':
      case '-okdir': {
        const program = this.words[this.at] ?? '';
        const changes = !readingPrograms.has(program.slice(program.lastIndexOf('/') + 1));
        if (changes) this.writes = true;
        while (this.at < this.words.length) {
          const part = this.words[this.at++] ?? '';
          if (part === ';' || part === '+') break;
        }
        return () => ({ value: 'maybe', acts: changes });
      }
      default:
        if (quietActions.has(word)) return test(() => true);
        if (valuedUnknown.has(word)) this.at++;
        return test(() => 'maybe');
    }
  }
}

/**
 * The starting points find was given (none: find starts at `.`) and where its expression begins,
 * its leading global options (`-H`, `-L`, `-P`, `-O3`, `-D debug`) skipped.
 */
export function findStartingPoints(args: readonly string[]): { starts: string[]; expressionAt: number } {
  let index = 0;
  while (index < args.length) {
    const word = args[index] ?? '';
    if (word === '-H' || word === '-L' || word === '-P' || /^-O\d*$/.test(word)) index++;
    else if (word === '-D') index += 2;
    else break;
  }
  if (args[index] === '--') index++;
  const starts: string[] = [];
  while (index < args.length) {
    const word = args[index] ?? '';
    if (word.startsWith('-') || ['(', ')', '!', ','].includes(word)) break;
    starts.push(word);
    index++;
  }
  return { starts, expressionAt: index };
}

/** The starting points and the expression of a find call (its leading global options skipped). */
function splitFind(args: readonly string[]): { starts: string[]; expression: string[] } {
  const { starts, expressionAt } = findStartingPoints(args);
  return { starts: starts.length === 0 ? ['.'] : starts, expression: args.slice(expressionAt) };
}

/**
 * A protected entry a `find` that changes files may act on, with why it is protected; undefined
 * for other commands, for a find that only reads or lists, and when nothing protected is reached.
 */
export function findReachesProtectedEntry(
  subcommand: AnalyzedSubcommandLike,
): { path: string; reason: string } | undefined {
  const { argv } = subcommand;
  const program = argv[0] ?? '';
  if (program.slice(program.lastIndexOf('/') + 1) !== 'find') return undefined;
  const { starts, expression } = splitFind(argv.slice(1));
  const parser = new Parser(expression);
  const matches = parser.parse();
  if (!parser.writes) return undefined;
  const cwd = subcommand.cwd;
  const dynamic = new Set(argv.filter((_, index) => subcommand.argKinds?.[index] === 'dynamic'));
  let budget = walkLimit;
  for (const start of starts) {
    // A starting point only known when the command runs may be anywhere, a protected folder included.
    if (
      dynamic.has(start) ||
      start.includes('$') ||
      start.includes('`') ||
      (cwd === null && !start.startsWith('/'))
    )
      return { path: start, reason: 'the starting point is only known when the command runs' };
    const root = posix.resolve(cwd ?? '/', start);
    const queue: Array<{ directory: string; shown: string }> = [{ directory: root, shown: start }];
    const startReason = protectedPathReason(root);
    if (startReason && matches({ shown: start, name: posix.basename(root), kind: 'd' }).acts !== false)
      return { path: root, reason: startReason };
    while (queue.length > 0 && budget > 0) {
      const { directory, shown } = queue.shift() as { directory: string; shown: string };
      let entries: import('node:fs').Dirent[];
      try {
        entries = readdirSync(directory, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const dirent of entries) {
        if (--budget <= 0) break;
        const path = posix.join(directory, dirent.name);
        const entry: Entry = {
          shown: shown.endsWith('/') ? `${shown}${dirent.name}` : `${shown}/${dirent.name}`,
          name: dirent.name,
          kind: dirent.isDirectory() ? 'd' : dirent.isSymbolicLink() ? 'l' : 'f',
        };
        const reason = protectedPathReason(path);
        if (reason && matches(entry).acts !== false) return { path, reason };
        // git's object store holds no names a pattern picks out; everything else is walked.
        if (entry.kind === 'd' && !(dirent.name === 'objects' && directory.endsWith('/.git')))
          queue.push({ directory: path, shown: entry.shown });
      }
    }
  }
  return undefined;
}
