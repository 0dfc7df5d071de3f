import { own } from '../own.ts';

/**
 * Short options whose value names a file the program opens and reads (`grep -f FILE`, `date -f
 * FILE`, `file -m FILE`, `git config -f FILE`). The permission engine treats every separate word
 * as a possible path, so `grep -f ~/.ssh/id_rsa x` is a read of the key; the same value attached
 * to its letter (`-f~/.ssh/id_rsa`) or at the end of a cluster (`-vf~/.ssh/id_rsa`) is one word
 * starting with `-`, and was only ever tried against deny rules. These tables say which letters
 * read, so the attached value is judged as the read it is, wherever the workspace check applies.
 */
interface FileLetters {
  /** Letters whose value is a file (or directory) the program reads. */
  reads: string;
  /** Other letters that take a value: the rest of a cluster after one of them is that value. */
  valued: string;
  /** Reading letters (and long options) whose value is a colon-separated list of files. */
  lists?: { letters: string; long: readonly string[] };
  /** Single-dash long options (Go's flag package) whose `-name=value` value is a file or directory read. */
  dashLong?: readonly string[];
}

const grepLetters: FileLetters = { reads: 'f', valued: 'eABCmdD' };

/** Per program (the name as run, without a directory). */
const programLetters: Readonly<Record<string, FileLetters>> = {
  grep: grepLetters,
  egrep: grepLetters,
  fgrep: grepLetters,
  zgrep: grepLetters,
  rg: { reads: 'f', valued: 'eABCgtTEjmMrd' },
  diff: { reads: 'X', valued: 'xIFLSDUCW' },
  du: { reads: 'X', valued: 'Bdt' },
  // -m names the magic files (colon-separated), -f a list of names.
  file: { reads: 'mf', valued: 'FeP', lists: { letters: 'm', long: ['--magic-file'] } },
  // -f reads dates line by line and prints each bad one; -r reads a file's time.
  date: { reads: 'fr', valued: 'dI' },
  // A go.mod or overlay elsewhere can point the build at any source; -C moves where it runs.
  go: { reads: '', valued: '', dashLong: ['-modfile', '-overlay', '-pgo', '-C'] },
};

/** git's diff options (`-O<orderfile>`) are accepted by every command that shows a diff. */
const gitDiffLetters: FileLetters = { reads: 'O', valued: 'lGSUM' };

/** Per git subcommand. */
const gitLetters: Readonly<Record<string, FileLetters>> = {
  diff: gitDiffLetters,
  show: gitDiffLetters,
  log: gitDiffLetters,
  whatchanged: gitDiffLetters,
  reflog: gitDiffLetters,
  stash: gitDiffLetters,
  'diff-tree': gitDiffLetters,
  'diff-index': gitDiffLetters,
  'diff-files': gitDiffLetters,
  'range-diff': gitDiffLetters,
  'format-patch': gitDiffLetters,
  grep: { reads: 'f', valued: 'eABCmO' },
  'ls-files': { reads: 'X', valued: 'x' },
  // -S names a revisions file; each line git cannot parse is printed in its error.
  blame: { reads: 'S', valued: 'LMC' },
  annotate: { reads: 'S', valued: 'LMC' },
  config: { reads: 'f', valued: '' },
};

/** git's global options that take the next word as their value. */
const gitValuedGlobals = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env']);

/** The letters for this argv's program (and git subcommand), and where its own words start. */
function lettersOf(argv: readonly string[]): { letters: FileLetters; from: number } | undefined {
  const program = argv[0] ?? '';
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (name !== 'git') {
    const letters = own(programLetters, name);
    return letters ? { letters, from: 1 } : undefined;
  }
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (gitValuedGlobals.has(word)) {
      index++;
      continue;
    }
    if (word.startsWith('-')) continue;
    const letters = own(gitLetters, word);
    return letters ? { letters, from: index + 1 } : undefined;
  }
  return undefined;
}

/**
 * The attached values of file-reading short options in `argv`, with the index of the word each is
 * in: `-fFILE`, `-vfFILE`, `-Hnf~/x`. A value in the next word is a word of its own and needs no
 * help. Scanning a cluster stops at a letter that takes another kind of value or at a character
 * that is no option letter (`grep -e/api/` is a pattern).
 */
export function attachedFileValues(argv: readonly string[]): Array<{ index: number; value: string }> {
  const found = lettersOf(argv);
  if (!found) return [];
  const { reads, valued, lists } = found.letters;
  const values: Array<{ index: number; value: string }> = [];
  const add = (index: number, value: string, list: boolean) => {
    for (const part of list ? value.split(':') : [value])
      if (part !== '') values.push({ index, value: part });
  };
  for (let index = found.from; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (word === '--') break;
    const long = lists?.long.find((option) => word === option || word.startsWith(`${option}=`));
    if (long !== undefined) {
      // The value of `--magic-file a:b` is the next word; of `--magic-file=a:b`, the rest of this one.
      const value = word === long ? argv[index + 1] : word.slice(long.length + 1);
      if (value !== undefined) add(word === long ? index + 1 : index, value, true);
      continue;
    }
    const dashLong = found.letters.dashLong?.find(
      (option) => word.startsWith(`${option}=`) || word.startsWith(`-${option}=`),
    );
    if (dashLong !== undefined) {
      add(index, word.slice(word.indexOf('=') + 1), false);
      continue;
    }
    if (!/^-[A-Za-z0-9]/.test(word)) continue;
    for (let at = 1; at < word.length; at++) {
      const letter = word.charAt(at);
      if (!/[A-Za-z0-9]/.test(letter) || valued.includes(letter)) break;
      if (reads.includes(letter)) {
        const list = lists?.letters.includes(letter) === true;
        const value = word.slice(at + 1);
        if (value !== '') add(index, value, list);
        else if (list && argv[index + 1] !== undefined) add(index + 1, argv[index + 1] as string, true);
        break;
      }
    }
  }
  return values;
}
