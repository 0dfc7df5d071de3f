import { attachedFileValues, sedScriptReads } from '../../../shell/index.ts';
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
export type PathCandidate = { path: string; primary: boolean; name?: true } | { unknown: string };

/**
 * Programs whose first argument, when it is a plain lowercase word, is the name of one of their
 * commands (`git status`, `npm test`, `cargo build`), and the commands of those that run a script
 * named by the next word (`npm run build`). The program looks such a word up among its commands,
 * aliases and scripts; it never opens a file of that name.
 */
const programsWithCommands = new Set(['git', 'npm', 'pnpm', 'yarn', 'cargo', 'go', 'docker', 'kubectl']);
const scriptRunners: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set(['run', 'run-script', 'rum', 'urn']),
  pnpm: new Set(['run', 'run-script']),
  yarn: new Set(['run']),
};
const commandWord = /^[a-z][a-z0-9-]*$/;
const scriptWord = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;

/**
 * How many words after the program are names its syntax gives them, not files: the command word of
 * a program in {@link programsWithCommands} when it comes first (no option before it), and the
 * script word after a script runner's `run`. 0, 1 or 2.
 */
export function leadingNameWords(subcommand: AnalyzedSubcommandLike): number {
  const { argv, argKinds } = subcommand;
  const program = argv[0] ?? '';
  const command = argv[1];
  if (!programsWithCommands.has(program) || command === undefined) return 0;
  if (argKinds?.[1] !== 'literal' || !commandWord.test(command)) return 0;
  const script = argv[2];
  const scriptNamed =
    scriptRunners[program]?.has(command) === true &&
    script !== undefined &&
    argKinds[2] === 'literal' &&
    scriptWord.test(script);
  return scriptNamed ? 2 : 1;
}

/** Input redirections read a file. */
const readingRedirects = new Set(['<', '<>', '<&']);

/** Expands the spellings of the home directory bash would expand; anything else dynamic stays unknown. */
export function expandHome(word: string, home: string, literal: boolean): string | undefined {
  // `~user`, `~+` and `~-` expand to another user's home, $PWD and $OLDPWD: not known here.
  if (/^~[^/]/.test(word)) return undefined;
  // A quoted `$` (`awk '{print $2}'`) is plain text; the analyser says which words are literal.
  if (literal) return word;
  const expanded = word.replace(/^(?:\$HOME|\$\{HOME\})(?=\/|$)/, home);
  return isDynamicWord(expanded) ? undefined : expanded;
}

/**
 * Program-specific reads that are not plain path arguments: a sed script is code, not a path (so
 * `sed -n /foo/p` reads no `/foo/p`), but its `r`/`R` commands read the files they name.
 */
function scriptReads(subcommand: AnalyzedSubcommandLike): {
  scripts: Set<number>;
  files: string[] | undefined;
} {
  const [program = '', ...args] = subcommand.argv;
  if (program !== 'sed' && program !== 'gsed') return { scripts: new Set(), files: [] };
  const reads = sedScriptReads(args);
  return { scripts: new Set(reads.scriptIndexes.map((index) => index + 1)), files: reads.files };
}

/** How many directories above `cwd` a git `REV:path` is also tried from. */
const maxRepositoryDepth = 8;

/** Every plausible path a subcommand reads. */
export function readPathCandidates(subcommand: AnalyzedSubcommandLike, home: string): PathCandidate[] {
  const script = scriptReads(subcommand);
  const gitProgram = subcommand.argv[0] === 'git';
  const names = leadingNameWords(subcommand);
  const candidates: PathCandidate[] = [];
  // A command or script name is still tried against deny rules, as written (no file is opened, so
  // over-matching stays harmless), but the disk is not asked about it.
  for (let index = 1; index <= names; index++)
    candidates.push({ path: subcommand.argv[index] as string, primary: false, name: true });
  const words = subcommand.argv
    .map((word, index) => ({
      word,
      script: script.scripts.has(index),
      literal: subcommand.argKinds?.[index] === 'literal' && !isDynamicWord(word.replace(/\$/g, '')),
    }))
    .slice(1 + names);
  for (const redirect of subcommand.redirects)
    if (readingRedirects.has(redirect.operator))
      words.push({ word: redirect.target, script: false, literal: false });
  // `grep -vf~/.ssh/id_rsa`: a file-reading option's attached value is a read like a separate word.
  for (const { index, value } of attachedFileValues(subcommand.argv))
    words.push({
      word: value,
      script: false,
      literal: subcommand.argKinds?.[index] === 'literal' && !isDynamicWord(value.replace(/\$/g, '')),
    });
  if (script.files === undefined)
    candidates.push({ unknown: `the files ${subcommand.argv[0]}'s script reads` });
  else for (const file of script.files) words.push({ word: file, script: false, literal: false });
  for (const { word, script: isScript, literal } of words) {
    if (word === '' || word === '-' || word === '--') continue;
    const expanded = expandHome(word, home, literal);
    if (expanded === undefined) {
      candidates.push({ unknown: word });
      continue;
    }
    const primary = new Set<string>();
    const fragments = new Set<string>();
    // Script text is tried against deny rules only: it names no file, but over-matching is harmless.
    if (!expanded.startsWith('-')) (isScript ? fragments : primary).add(expanded);
    const equals = expanded.indexOf('=');
    if (equals !== -1)
      (expanded.startsWith('--') && !isScript ? primary : fragments).add(expanded.slice(equals + 1));
    // `-f.env`, `-o/tmp/x`: a short option's value may be attached.
    if (/^-[A-Za-z0-9]./.test(expanded)) fragments.add(expanded.slice(2));
    const slash = expanded.indexOf('/');
    if (slash > 0) fragments.add(expanded.slice(slash));
    const colon = expanded.indexOf(':');
    if (colon >= 0 && !expanded.slice(0, colon).includes('/') && !expanded.includes('://')) {
      const inside = expanded.slice(colon + 1);
      fragments.add(inside);
      // git's `REV:path` is relative to the repository root, which may be any directory above.
      if (gitProgram && inside !== '' && !/^\.\.?(?:\/|$)|^\//.test(inside))
        for (let depth = 1; depth <= maxRepositoryDepth; depth++)
          fragments.add(`${'../'.repeat(depth)}${inside}`);
    }
    // `@file`: a response file (`strings @list`) or curl's `-d @file`.
    const at = expanded.indexOf('@');
    if (at >= 0 && at < expanded.length - 1) fragments.add(expanded.slice(at + 1));
    const atEquals = expanded.indexOf('=@');
    if (atEquals >= 0) fragments.add(expanded.slice(atEquals + 2));
    const tilde = expanded.indexOf('~');
    if (tilde > 0) fragments.add(expanded.slice(tilde));
    for (const path of primary) if (path !== '') candidates.push({ path, primary: true });
    for (const path of fragments)
      if (path !== '' && !primary.has(path)) candidates.push({ path, primary: false });
  }
  return candidates;
}

/**
 * Input sources that hold nothing of the user's: reading them reveals no file, so an input redirect
 * from them (`cmd < /dev/null`) needs no workspace check.
 */
export const harmlessReadSources = new Set(['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom']);

/**
 * Files a subcommand's input comes from (`< FILE`, `<> FILE`, `3< FILE`, `xargs -a FILE`). The shell or
 * the wrapper opens them whatever the program is, and a wrapper may turn their contents into the
 * program's arguments (`xargs echo < FILE` prints FILE), so they are reads even for programs that
 * open nothing themselves.
 */
export function inputSourceWords(subcommand: AnalyzedSubcommandLike): string[] {
  return subcommand.redirects
    .filter((redirect) => readingRedirects.has(redirect.operator) && !/^\d+-?$|^-$/.test(redirect.target))
    .map((redirect) => redirect.target);
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
  '[[',
  'echo',
  'printf',
]);

/** Per search program: whether it recurses without a path, and the short options that take a value. */
const searchPrograms: Readonly<
  Record<string, { recursive: (args: readonly string[]) => boolean; valued: string }>
> = {
  grep: { recursive: (args) => args.some(isRecursiveGrepOption), valued: 'efmABCdDX' },
  egrep: { recursive: (args) => args.some(isRecursiveGrepOption), valued: 'efmABCdDX' },
  fgrep: { recursive: (args) => args.some(isRecursiveGrepOption), valued: 'efmABCdDX' },
  rg: { recursive: () => true, valued: 'efgtTmABCMjEr' },
  ag: { recursive: () => true, valued: 'GgmABCp' },
  ack: { recursive: () => true, valued: 'gmABC' },
};

function isRecursiveGrepOption(arg: string): boolean {
  return (
    /^-[A-Za-z]*[rR]/.test(arg) ||
    arg === '--recursive' ||
    arg === '--dereference-recursive' ||
    /^--directories=recurse/.test(arg) ||
    /^-[A-Za-z]*d(recurse)?$/.test(arg)
  );
}

/**
 * True when a search program given no path searches the directory it runs in (`grep -r KEY`,
 * `rg KEY`, `git grep --untracked KEY`): the engine then treats `.` as read, so a deny rule on a
 * file inside it is not dodged by leaving the path out.
 */
export function searchesWorkingDirectory(argv: readonly string[]): boolean {
  const [program = '', ...rest] = argv;
  let args = rest;
  let valued = '';
  if (program === 'git' && rest[0] === 'grep') {
    args = rest.slice(1);
    if (!args.some((arg) => arg === '--untracked' || arg === '--no-index')) return false;
    valued = 'efmABC';
  } else {
    const spec = Object.hasOwn(searchPrograms, program) ? searchPrograms[program] : undefined;
    if (spec === undefined || !spec.recursive(rest)) return false;
    valued = spec.valued;
  }
  let patternGiven = false;
  const operands: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '--') {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (arg.startsWith('--')) {
      if (/^--(regexp|file)(=|$)/.test(arg)) patternGiven = true;
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const cluster = arg.slice(1);
      const valuedAt = [...cluster].findIndex((flag) => valued.includes(flag));
      if (valuedAt !== -1) {
        const flag = cluster[valuedAt];
        if (flag === 'e' || flag === 'f') patternGiven = true;
        if (valuedAt === cluster.length - 1) index++;
      }
      continue;
    }
    operands.push(arg);
  }
  return operands.length <= (patternGiven ? 0 : 1);
}

/**
 * The directories the shell lists to expand the patterns among a subcommand's words (a star under
 * `~/.ssh/` lists `~/.ssh/`; stars two levels under `../` list `../` first): the literal part before
 * the first pattern character, up to its last slash, or `.` when it has none.
 */
export function patternDirectories(subcommand: AnalyzedSubcommandLike): string[] {
  const directories: string[] = [];
  subcommand.argv.forEach((word, index) => {
    if (index === 0) return;
    // A computed word (`$HOME/.ssh/*`) may hold an unquoted pattern too; it is taken as one.
    const kind = subcommand.argKinds?.[index];
    if (kind !== 'glob' && !(kind !== 'literal' && /[*?[]/.test(word))) return;
    const literal = word.split(/[*?[]/)[0] ?? '';
    directories.push(literal.includes('/') ? literal.slice(0, literal.lastIndexOf('/') + 1) : '.');
  });
  return directories;
}

/** Listing programs that list the directory they run in when no operand names one (`ls`, `find`). */
const workingDirectoryListers = new Set(['ls', 'dir', 'vdir', 'du', 'tree', 'find']);

/**
 * True when a listing program lists the directory it runs in: when no word looks like an operand,
 * or whenever it runs somewhere other than the project's directory (`env -C DIR ls -I x`, `cd && ls`),
 * where an option's value cannot be told from an operand without every option's arity. The engine
 * then treats `.` as read.
 */
export function listsWorkingDirectory(argv: readonly string[], runsElsewhere: boolean): boolean {
  const [program = '', ...args] = argv;
  if (!workingDirectoryListers.has(program.slice(program.lastIndexOf('/') + 1))) return false;
  return (
    runsElsewhere || args.every((arg) => arg.startsWith('-') || arg === '!' || arg === '(' || arg === ')')
  );
}

/**
 * Programs known not to follow symbolic links met while recursing (or never to recurse at all), and
 * the options that make them follow. Everything not listed is assumed to follow: a program the table
 * does not know that reads a directory may read whatever the links under it lead to.
 */
const linkPolicies: Readonly<
  Record<string, { follows: (args: readonly string[]) => boolean; defaultsToCwd?: true }>
> = {
  grep: {
    follows: (args) => hasShortFlag(args, 'R') || args.includes('--dereference-recursive'),
    defaultsToCwd: true,
  },
  egrep: {
    follows: (args) => hasShortFlag(args, 'R') || args.includes('--dereference-recursive'),
    defaultsToCwd: true,
  },
  fgrep: {
    follows: (args) => hasShortFlag(args, 'R') || args.includes('--dereference-recursive'),
    defaultsToCwd: true,
  },
  rg: { follows: (args) => hasShortFlag(args, 'L') || args.includes('--follow'), defaultsToCwd: true },
  ag: { follows: (args) => hasShortFlag(args, 'f') || args.includes('--follow'), defaultsToCwd: true },
  ack: { follows: (args) => args.includes('--follow'), defaultsToCwd: true },
  fd: { follows: (args) => hasShortFlag(args, 'L') || args.includes('--follow'), defaultsToCwd: true },
  fdfind: { follows: (args) => hasShortFlag(args, 'L') || args.includes('--follow'), defaultsToCwd: true },
  find: { follows: (args) => args.includes('-L') || args.includes('-follow'), defaultsToCwd: true },
  ls: { follows: (args) => hasShortFlag(args, 'L') || args.includes('--dereference'), defaultsToCwd: true },
  du: { follows: (args) => hasShortFlag(args, 'L') || args.includes('--dereference'), defaultsToCwd: true },
  tree: { follows: (args) => hasShortFlag(args, 'l') || args.includes('--follow'), defaultsToCwd: true },
  cp: { follows: (args) => hasShortFlag(args, 'L') || args.includes('--dereference') },
  chmod: { follows: (args) => hasShortFlag(args, 'L') },
  chown: { follows: (args) => hasShortFlag(args, 'L') || args.includes('--dereference') },
  chgrp: { follows: (args) => hasShortFlag(args, 'L') || args.includes('--dereference') },
  tar: {
    follows: (args) =>
      hasShortFlag(args, 'h') || args.includes('--dereference') || /^[A-Za-z]*h/.test(args[0] ?? ''),
  },
  rsync: {
    follows: (args) =>
      hasShortFlag(args, 'L') ||
      hasShortFlag(args, 'k') ||
      args.some((arg) => /^--copy-(links|unsafe-links|dirlinks)$/.test(arg)),
  },
};

/** Programs that never walk into a directory they are given (they read files, or only names). */
const nonDescending = new Set([
  ...namesOnlyCommands,
  'git',
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'wc',
  'sort',
  'uniq',
  'cut',
  'nl',
  'od',
  'xxd',
  'hexdump',
  'strings',
  'md5sum',
  'sha1sum',
  'sha224sum',
  'sha256sum',
  'sha384sum',
  'sha512sum',
  'b2sum',
  'cksum',
  'jq',
  'tac',
  'rev',
  'base64',
  'cmp',
  'mv',
  'rm',
  'rmdir',
  'sed',
]);

/** True when a short-option word (`-rL`, `-L`) carries `flag`. */
function hasShortFlag(args: readonly string[], flag: string): boolean {
  return args.some((arg) => /^-[A-Za-z0-9]+$/.test(arg) && arg.slice(1).includes(flag));
}

/**
 * Whether a command reading a directory also reads what symbolic links under it lead to, and
 * whether it reads the directory it runs in when given none (`find -L`, `grep -R KEY`).
 */
export function linkFollowingRead(argv: readonly string[]): { follows: boolean; defaultsToCwd: boolean } {
  const [program = '', ...args] = argv;
  const name = program.slice(program.lastIndexOf('/') + 1);
  const policy = Object.hasOwn(linkPolicies, name) ? linkPolicies[name] : undefined;
  if (policy) {
    const follows = policy.follows(args);
    return { follows, defaultsToCwd: follows && policy.defaultsToCwd === true };
  }
  return { follows: !nonDescending.has(name), defaultsToCwd: false };
}
