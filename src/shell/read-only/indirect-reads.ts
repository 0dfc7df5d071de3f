import { own } from '../own.ts';
import { awkSymbolTable } from './search-tools.ts';

/**
 * Reads a command makes of files its words do not name. Read deny rules are matched against the words
 * of a command; a program that takes the names of the files it reads from somewhere else (a list file,
 * stdin, its own script, git's object store) reads files no word shows. Each such feature is listed
 * here with what it reads, so the permission engine can ask instead of trusting the words.
 */
export interface IndirectRead {
  /**
   * `names`: the names of files to open come from a file, stdin, a script or a response file, so they
   * may be anywhere; `history`: git shows file contents from its object store or the tracked files of
   * the repository, not limited to paths the words show.
   */
  kind: 'names' | 'history';
  /** What is read, for the ask message (`file names listed in list.txt`). */
  what: string;
  /** The names may lie outside the working directories (a list file, a script), so the read-only
   * default must not cover the command even without deny rules. */
  outside: boolean;
  /**
   * The names are paths below this absolute directory as a path lister printed them (`find . | xargs
   * cat`). They are only as safe as that directory's tree: a symbolic link in it leads elsewhere, and a
   * name with blanks splits into other words; the permission engine checks both on disk.
   */
  below?: string;
}

/** How a name-list option is written. */
interface NameListOptions {
  /** Long options (an unambiguous abbreviation counts too: getopt_long accepts `--files0=list`). */
  long?: readonly string[];
  /** Single-letter options, alone, clustered or with an attached value. */
  short?: string;
  /** Single-dash words (`find -files0-from`). */
  words?: readonly string[];
  /** Words starting with `@` are response files whose content becomes arguments. */
  responseFiles?: boolean;
  /** tar's old style: a first word without a dash is a cluster of option letters. */
  oldStyleCluster?: boolean;
  /** The command reads file names from stdin whatever its options (`cpio -o`). */
  check?: (args: readonly string[]) => string | undefined;
}

const checksumNames: NameListOptions = { long: ['--check'], short: 'c' };
/** GNU binutils and compilers expand `@file` into arguments (libiberty's expandargv, javac argfiles). */
const responseFileProgram: NameListOptions = { responseFiles: true };

/** Per program: options and words through which it reads file names from a file or stdin. */
const nameListOptions: Readonly<Record<string, NameListOptions>> = {
  wc: { long: ['--files0-from'] },
  du: { long: ['--files0-from'] },
  sort: { long: ['--files0-from'] },
  find: { words: ['-files0-from'] },
  file: { long: ['--files-from'], short: 'f' },
  tar: { long: ['--files-from'], short: 'T', oldStyleCluster: true },
  bsdtar: { long: ['--files-from'], short: 'T' },
  rsync: { long: ['--files-from'] },
  zip: { long: ['--names-stdin'], short: '@' },
  cpio: {
    check: (args) =>
      args.some((arg) => /^-[^-]*[op]/.test(arg) || arg === '--create' || arg === '--pass-through')
        ? 'files whose names cpio reads from stdin'
        : undefined,
  },
  '7z': {
    check: (args) =>
      args.some((arg) => arg.startsWith('@') || /^-[ix]r?[-!@]?@/.test(arg))
        ? 'files named in a 7z list file'
        : undefined,
  },
  parallel: { long: ['--arg-file'], short: 'a', words: ['::::', '::::+'] },
  pax: {
    check: (args) =>
      args.some((arg) => /^-[^-]*w/.test(arg)) ? 'files whose names pax reads from stdin' : undefined,
  },
  ctags: { short: 'L' },
  cscope: { short: 'i' },
  'clang-format': { long: ['--files'] },
  rclone: { long: ['--files-from', '--files-from-raw'] },
  // A curl config file can hold `-d @FILE` and `-T FILE`.
  curl: { long: ['--config'], short: 'K' },
  md5sum: checksumNames,
  sha1sum: checksumNames,
  sha224sum: checksumNames,
  sha256sum: checksumNames,
  sha384sum: checksumNames,
  sha512sum: checksumNames,
  b2sum: checksumNames,
  cksum: checksumNames,
  shasum: checksumNames,
  strings: responseFileProgram,
  nm: responseFileProgram,
  objdump: responseFileProgram,
  readelf: responseFileProgram,
  size: responseFileProgram,
  objcopy: responseFileProgram,
  strip: responseFileProgram,
  addr2line: responseFileProgram,
  'c++filt': responseFileProgram,
  ar: responseFileProgram,
  as: responseFileProgram,
  ld: responseFileProgram,
  gcc: responseFileProgram,
  'g++': responseFileProgram,
  cc: responseFileProgram,
  'c++': responseFileProgram,
  cpp: responseFileProgram,
  clang: responseFileProgram,
  'clang++': responseFileProgram,
  rustc: responseFileProgram,
  javac: responseFileProgram,
  java: responseFileProgram,
  javadoc: responseFileProgram,
  jar: responseFileProgram,
  kotlinc: responseFileProgram,
  scalac: responseFileProgram,
};

/** Long option `written` names `option`, exactly or as an abbreviation of at least one letter. */
function abbreviates(written: string, option: string): boolean {
  const name = written.split('=')[0] ?? written;
  return name.length >= 3 && option.startsWith(name);
}

function nameListRead(program: string, args: readonly string[]): string | undefined {
  const spec = own(nameListOptions, program);
  if (!spec) return undefined;
  const custom = spec.check?.(args);
  if (custom) return custom;
  for (const [index, arg] of args.entries()) {
    if (arg === '--') {
      if (spec.responseFiles && args.slice(index + 1).some((word) => word.startsWith('@')))
        return 'arguments from a response file (@file)';
      break;
    }
    if (spec.responseFiles && arg.startsWith('@') && arg.length > 1)
      return `arguments from the response file ${arg.slice(1)}`;
    if (arg.startsWith('--')) {
      const option = spec.long?.find((candidate) => abbreviates(arg, candidate));
      if (option) return `files named in a list (${program} ${option})`;
      continue;
    }
    if (spec.words?.includes(arg)) return `files named in a list (${program} ${arg})`;
    const cluster =
      arg.startsWith('-') && arg.length > 1
        ? arg.slice(1)
        : index === 0 && spec.oldStyleCluster && /^[A-Za-z]+$/.test(arg)
          ? arg
          : undefined;
    if (cluster !== undefined && spec.short) {
      const letter = [...spec.short].find((flag) => cluster.includes(flag));
      if (letter) return `files named in a list (${program} -${letter})`;
    }
  }
  return undefined;
}

/** awk features that open files named by the program or loaded from elsewhere. */
function awkRead(args: readonly string[]): string | undefined {
  for (const arg of args) {
    // Only flags that take no value may stand before the letter: `-vdelim=,` is a variable, not `-l`.
    if (/^-[bcCghMnNOPrsStV]*[fiElW]/.test(arg) || /^--(?:file|include|exec|load|source)(?:=|$)/.test(arg))
      return `files an awk program loaded by ${arg} opens`;
    if (arg.startsWith('-')) continue;
    // ARGV/ARGC decide which files the main loop opens; getline opens any name; @include loads files.
    // SYMTAB reaches ARGV and ARGC by a computed name (search-tools.ts).
    if (/\bARGV\b|\bARGC\b|\bgetline\b|@include|@load|\bFILENAME\s*=/.test(arg) || awkSymbolTable.test(arg))
      return 'files the awk program names itself (ARGV, getline, @include)';
  }
  return undefined;
}

/** jq modules: `import "x" as $d` reads x.json, `include "y"` reads y.jq, from -L directories. */
function jqRead(args: readonly string[]): string | undefined {
  return args.some((arg) => /\b(?:import|include)\s*"/.test(arg) || arg === '-L' || arg.startsWith('-L'))
    ? 'module files jq imports'
    : undefined;
}

/** Programs given names by xargs that do not open files with them. */
const nonReadingPrograms = new Set([
  'echo',
  'printf',
  'true',
  'false',
  'sleep',
  'basename',
  'dirname',
  'seq',
  'expr',
  'kill',
]);

/** git subcommands that never print the contents of files (unless asked to patch interactively). */
const gitNoContent = new Set([
  'status',
  'branch',
  'tag',
  'rev-parse',
  'ls-files',
  'ls-tree',
  'ls-remote',
  'remote',
  'describe',
  'merge-base',
  'show-ref',
  'for-each-ref',
  'check-ignore',
  'check-attr',
  'check-ref-format',
  'name-rev',
  'count-objects',
  'worktree',
  'version',
  'cherry',
  'rev-list',
  'shortlog',
  'init',
  'clone',
  'fetch',
  'pull',
  'push',
  'add',
  'commit',
  'switch',
  'checkout',
  'restore',
  'reset',
  'merge',
  'rebase',
  'cherry-pick',
  'revert',
  'mv',
  'rm',
  'clean',
  'gc',
  'prune',
  'fsck',
  'help',
  'config',
  'stash',
  'log',
  'whatchanged',
  'reflog',
  'var',
  'symbolic-ref',
  'update-ref',
  'bisect',
  'submodule',
  'sparse-checkout',
  'maintenance',
]);

/** git subcommands that show diffs: a patch by default, or only when an option asks for one. */
const gitPatchByDefault = new Set(['diff', 'show', 'range-diff', 'format-patch']);
const gitPatchOnRequest = new Set(['log', 'whatchanged', 'reflog', 'diff-tree', 'diff-index', 'diff-files']);
/** git subcommands that print hunks when run with `-p`/`--patch`/`--interactive`. */
const gitInteractivePatch = new Set(['add', 'checkout', 'restore', 'reset', 'commit', 'stash']);
/** git subcommands that always print contents, limited by the paths they are given. */
const gitContentByPath = new Set(['grep', 'blame', 'annotate']);
/** git subcommands that print an object named by a revision, which may be a blob. */
const gitPrintsObjects = new Set(['show', 'grep', 'diff', 'cat-file']);

/** Options that make git print patches, pick commits by content, or show blob lines. */
const gitContentLong =
  /^--(?:patch|patch-with-raw|patch-with-stat|unified|function-context|word-diff|word-diff-regex|color-words|cc|combined-all-paths|binary|pickaxe-all|pickaxe-regex|find-object|check|remerge-diff|diff-merges|full-diff|textconv|filters|batch|batch-command)(?:=|$)/;
/** Output formats that replace the patch with names or numbers. */
const gitSummaryLong =
  /^--(?:stat|numstat|shortstat|dirstat|dirstat-by-file|name-only|name-status|raw|summary|compact-summary|no-patch|quiet)(?:=|$)/;
const gitContentShort = new Set(['p', 'u', 'W', 'S', 'G', 'L', 'U', 'm', 'c']);
const gitValuedShort = new Set(['n', 'O', 'l', 'M', 'C', 'B', 'X', 'e', 'f', 'A', 'I']);

/** Whether a diff option cluster asks for content (`-p`, `-U3`, `-Ssecret`, `-L1,5:f`). */
function gitShortAsksContent(arg: string): boolean {
  if (!/^-[^-]/.test(arg)) return false;
  for (const letter of arg.slice(1).replace(/^\d+/, '')) {
    if (gitContentShort.has(letter)) return true;
    if (gitValuedShort.has(letter)) return false;
  }
  return false;
}

/** Git global options that take a value in the next word. */
const gitGlobalValued = new Set([
  '-c',
  '-C',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--exec-path',
  '--super-prefix',
]);

/**
 * git grep options whose value may come as the next word. Only grep's: taking a word for a value makes
 * the blob check see fewer revisions, so a guess here must never be wrong.
 */
const gitGrepSeparateValue = new Set([
  '-e',
  '-f',
  '-A',
  '-B',
  '-C',
  '-m',
  '--regexp',
  '--file',
  '--max-depth',
  '--max-count',
  '--threads',
  '--after-context',
  '--before-context',
  '--context',
]);

/**
 * A revision that can only name a commit (`HEAD~1`, `main^`, `a..b`, `x^{commit}`). Any other name,
 * HEAD included, may point at a blob: `git tag t BLOB` and `git symbolic-ref HEAD refs/tags/t` work.
 */
const commitOnlyRevision = /(?:~\d*|\^\d*|\^\{commit\})$|\.\./;
/** `REV:path`: a path inside a revision, which the engine checks like a file name. */
const revisionPath = /^[^:]*:[^:]+$/;

/** Whether this git call prints file contents (patches, blobs, matching lines). */
function gitShowsContent(subcommand: string, rest: readonly string[], options: readonly string[]): boolean {
  const asksContent = options.some((arg) => gitContentLong.test(arg) || gitShortAsksContent(arg));
  const summaryOnly = options.some((arg) => gitSummaryLong.test(arg) || arg === '-s');
  if (subcommand === 'stash') {
    const action = rest.find((arg) => !arg.startsWith('-'));
    if (action === 'show' || action === 'list') return asksContent;
  }
  if (gitInteractivePatch.has(subcommand))
    return options.some(
      (arg) =>
        /^--(?:patch|interactive)$/.test(arg) ||
        /^-[A-Za-z]*p/.test(arg) ||
        (subcommand === 'add' && /^-[A-Za-z]*i/.test(arg)),
    );
  if (gitContentByPath.has(subcommand)) return true;
  if (gitPatchByDefault.has(subcommand)) return asksContent || !summaryOnly;
  if (gitPatchOnRequest.has(subcommand)) return asksContent;
  return false;
}

/**
 * What a git call shows from history or tracked files beyond the paths its words name, or undefined
 * when it shows names and metadata only, or only paths its words name (a plain pathspec after `--`,
 * `REV:path`, blame's file).
 */
function gitRead(args: readonly string[], environment: readonly string[]): IndirectRead | undefined {
  let index = 0;
  let literalPathspecs = false;
  // GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_* and the like point git at other files.
  let otherRepository = environment.some((name) => name.startsWith('GIT_'));
  for (; index < args.length; index++) {
    const word = args[index] ?? '';
    if (!word.startsWith('-')) break;
    const name = word.split('=')[0] ?? word;
    if (word === '--literal-pathspecs') literalPathspecs = true;
    if (['-C', '--git-dir', '--work-tree', '--namespace'].includes(name)) otherRepository = true;
    // Configuration that moves the work tree or pulls in other files changes what git shows.
    if (
      (word === '-c' || word === '--config-env') &&
      /^(?:core\.(?:worktree|bare)|include)/i.test(args[index + 1] ?? '')
    )
      otherRepository = true;
    if (gitGlobalValued.has(word)) index++;
  }
  const subcommand = args[index];
  if (subcommand === undefined) return undefined;
  const rest = args.slice(index + 1);
  const history = (what: string): IndirectRead => ({ kind: 'history', what, outside: false });
  const separator = rest.indexOf('--');
  const beforeSeparator = separator === -1 ? rest : rest.slice(0, separator);
  const options = beforeSeparator.filter((arg) => arg.startsWith('-'));
  if (options.some((arg) => /^--(?:pathspec-from-file|stdin|annotate-stdin)(?:=|$)/.test(arg)))
    return {
      kind: 'names',
      what: `paths or objects git ${subcommand} reads from a file or stdin`,
      outside: false,
    };
  if (subcommand === 'config')
    return options.some((arg) => /^--blob(?:=|$)/.test(arg))
      ? history('a blob (git config --blob)')
      : undefined;
  const operands = beforeSeparator.filter(
    (arg, position) =>
      !arg.startsWith('-') &&
      !(subcommand === 'grep' && gitGrepSeparateValue.has(beforeSeparator[position - 1] ?? '')),
  );
  if (subcommand === 'cat-file') {
    if (options.some((arg) => /^--batch(?:-command)?(?:=|$)/.test(arg)))
      return history('objects git cat-file --batch names on stdin');
    if (options.some((arg) => /^-[tse]$|^--batch-check/.test(arg))) return undefined;
    const object = operands.at(-1);
    return object !== undefined && revisionPath.test(object)
      ? undefined
      : history('an object git cat-file prints without naming it as REV:path');
  }
  const known =
    gitNoContent.has(subcommand) ||
    gitPatchByDefault.has(subcommand) ||
    gitPatchOnRequest.has(subcommand) ||
    gitContentByPath.has(subcommand);
  if (!known) return history(`whatever git ${subcommand} prints, file contents included`);
  if (!gitShowsContent(subcommand, rest, options)) {
    // `git show --stat X` still prints X whole when X is a blob.
    if (subcommand !== 'show') return undefined;
  }
  if (otherRepository) return history(`file contents git ${subcommand} shows from another repository`);
  if (subcommand === 'blame' || subcommand === 'annotate') return undefined;
  if (subcommand === 'diff' && options.includes('--no-index')) return undefined;
  // grep's first operand is the pattern unless -e/-f give it.
  const revisions =
    subcommand === 'grep' && !options.some((arg) => /^-[^-]*[ef]|^--(?:regexp|file)(?:=|$)/.test(arg))
      ? operands.slice(1)
      : operands;
  if (gitPrintsObjects.has(subcommand)) {
    if (subcommand === 'show' && revisions.length === 0)
      return history('the object HEAD names, possibly a blob');
    const blobLike = revisions.find((rev) => !revisionPath.test(rev) && !commitOnlyRevision.test(rev));
    if (blobLike !== undefined) return history(`the object ${blobLike} names, possibly a blob`);
    if (!gitShowsContent(subcommand, rest, options)) return undefined;
    if (subcommand === 'show' && revisions.every((rev) => revisionPath.test(rev))) return undefined;
  }
  const pathspecs = separator === -1 ? [] : rest.slice(separator + 1);
  if (pathspecs.length === 0)
    return history(`file contents git ${subcommand} shows with no path after \`--\` to limit them`);
  const magic = pathspecs.find((path) => path.startsWith(':') || (!literalPathspecs && /[*?[\\]/.test(path)));
  if (magic !== undefined) return history(`files git matches against the pattern ${magic} itself`);
  return undefined;
}

/** Everything a command reads that its words do not name. */
export function indirectReadsOf(
  argv: readonly string[],
  xargs?: { replace?: string; argFile?: string; listedBelow?: string },
  environment: readonly string[] = [],
): IndirectRead[] {
  const [program = '', ...args] = argv;
  const reads: IndirectRead[] = [];
  // xargs hands over whatever its input holds: only names a path lister printed stay below a directory.
  if (xargs !== undefined && !nonReadingPrograms.has(program)) {
    if (xargs.argFile !== undefined)
      reads.push({
        kind: 'names',
        what: `files whose names xargs reads from ${xargs.argFile}`,
        outside: true,
      });
    else if (xargs.listedBelow !== undefined)
      reads.push({
        kind: 'names',
        what: `files whose names xargs reads from the paths listed below ${xargs.listedBelow}`,
        outside: false,
        below: xargs.listedBelow,
      });
    else reads.push({ kind: 'names', what: 'files whose names xargs reads from its input', outside: true });
  }
  // `find … -exec cat {} +` opens whatever the walk finds, not names on the line.
  if (program === 'find' && args.some((arg) => /^-(?:exec|execdir|ok|okdir)$/.test(arg)))
    reads.push({ kind: 'names', what: 'files find hands to the program it runs', outside: false });
  const listed = nameListRead(program, args);
  if (listed) reads.push({ kind: 'names', what: listed, outside: true });
  if (['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk'].includes(program)) {
    const awk = awkRead(args);
    if (awk) reads.push({ kind: 'names', what: awk, outside: true });
  }
  if (program === 'jq') {
    const jq = jqRead(args);
    if (jq) reads.push({ kind: 'names', what: jq, outside: true });
  }
  if (program === 'git') {
    const git = gitRead(args, environment);
    if (git) reads.push(git);
  }
  return reads;
}
