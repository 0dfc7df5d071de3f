import { sedScriptReads } from './read-only/sed.ts';
import type { ArgKind } from './types.ts';

/** The commands {@link writeTargetsOf} knows; any other writes nothing through its arguments. */
const writerNames = new Set([
  'tee',
  'touch',
  'rm',
  'rmdir',
  'mkdir',
  'truncate',
  'shred',
  'chmod',
  'chown',
  'chgrp',
  'cp',
  'mv',
  'ln',
  'install',
  'rsync',
  'scp',
  'sed',
  'gsed',
  'git',
  'dd',
  'curl',
  'wget',
  'uniq',
  'sort',
]);

/** Whether {@link writeTargetsOf} knows what this program writes through its arguments. */
export function writeTargetsKnown(program: string): boolean {
  return writerNames.has(program);
}

/**
 * Files a command obviously writes through its arguments (not redirections): `tee FILE`,
 * `sort -o FILE`, `uniq IN OUT`, `cp/mv … DEST`, `touch`, `rm`, `mkdir`, `ln`. Best effort, for
 * path rules; commands not listed are still not read-only unless an allowlist says so.
 */
export function writeTargetsOf(argv: readonly string[], kinds: readonly ArgKind[]): string[] {
  const name = argv[0];
  if (name === undefined || !writerNames.has(name)) return [];
  const args = argv.slice(1);
  const operands: string[] = [];
  let optionsDone = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    // A pattern stays a target (the engine expands it on disk); a run-time word is judged elsewhere.
    if ((kinds[index + 1] ?? 'literal') === 'dynamic') continue;
    if (!optionsDone && word === '--') {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && word.startsWith('-') && word !== '-') continue;
    operands.push(word);
  }
  switch (name) {
    case 'tee':
    case 'touch':
    case 'rm':
    case 'rmdir':
    case 'mkdir':
    case 'truncate':
    case 'shred':
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return name === 'chmod' || name === 'chown' || name === 'chgrp' ? operands.slice(1) : operands;
    case 'cp':
    case 'mv':
    case 'ln':
    case 'install':
    case 'rsync':
    case 'scp': {
      const targetDirectory = optionValues(args, 't', '--target-directory');
      return [...targetDirectory, ...(operands.length > 1 ? operands.slice(-1) : [])];
    }
    case 'sed':
    case 'gsed': {
      if (!args.some((word) => /^-[A-Za-z]*i/.test(word) || /^--in-place(=|$)/.test(word))) return [];
      const scripts = new Set(sedScriptReads(args).scriptIndexes);
      const edited = args.filter(
        (word, index) => !scripts.has(index) && operands.includes(word) && !optionValueAt(args, index),
      );
      return [...edited, ...sedBackups(args, edited)];
    }
    case 'git':
      return gitWriteTargets(args);
    case 'dd':
      return operands.filter((word) => word.startsWith('of=')).map((word) => word.slice(3));
    case 'curl':
      return optionValues(args, 'o', '--output');
    case 'wget':
      return optionValues(args, 'O', '--output-document');
    case 'uniq':
      return operands.length > 1 ? operands.slice(1, 2) : [];
    case 'sort':
      return optionValues(args, 'o', '--output');
    default:
      return [];
  }
}

/**
 * Values of one option in every spelling: `-o FILE`, `-oFILE`, `-uo FILE` (a cluster ending in the
 * letter), `--output FILE` and `--output=FILE`. An empty letter means the option has no short form.
 */
function optionValues(args: readonly string[], letter: string, long: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--') break;
    // getopt_long accepts any unambiguous prefix (`sort --o=FILE`); a wrong guess only asks more.
    const name = word.split('=')[0] ?? word;
    if (word.startsWith('--') && name.length >= 3 && long.startsWith(name)) {
      const value = name === word ? args[++index] : word.slice(name.length + 1);
      if (value !== undefined) values.push(value);
      continue;
    }
    if (letter === '' || word.startsWith('--') || !word.startsWith('-')) continue;
    const at = word.indexOf(letter, 1);
    if (at === -1 || !/^[A-Za-z]*$/.test(word.slice(1, at))) continue;
    const attached = word.slice(at + 1);
    const value = attached === '' ? args[++index] : attached;
    if (value !== undefined) values.push(value);
  }
  return values;
}

/**
 * The backup files `sed -i SUFFIX` writes: FILE+SUFFIX, or, when SUFFIX holds `*`, SUFFIX with each `*`
 * replaced by the file's name, in the file's directory or wherever an absolute SUFFIX points
 * (`sed -i'/home/u/*' … .bashrc` writes /home/u/.bashrc).
 */
function sedBackups(args: readonly string[], edited: readonly string[]): string[] {
  let suffix = '';
  for (const word of args) {
    if (word === '--') break;
    const long = /^--in-?p?l?a?c?e?=(.*)$/s.exec(word)?.[1];
    const short = word.startsWith('--') ? undefined : /^-[nsuzErR]*i(.+)$/s.exec(word)?.[1];
    if (long !== undefined || short !== undefined) suffix = long ?? short ?? '';
  }
  if (suffix === '') return [];
  return edited.map((file) => {
    if (!suffix.includes('*')) return `${file}${suffix}`;
    const slash = file.lastIndexOf('/');
    const named = suffix.replaceAll('*', file.slice(slash + 1));
    return named.startsWith('/') || slash === -1 ? named : `${file.slice(0, slash + 1)}${named}`;
  });
}

/** Whether the word at `index` is the value of a preceding `-e`/`-f`/`-l` sed option. */
function optionValueAt(args: readonly string[], index: number): boolean {
  const previous = args[index - 1] ?? '';
  return /^-[A-Za-z]*[efl]$/.test(previous) || /^--(expression|file|line-length)$/.test(previous);
}

/** Files git subcommands write through their own options (`--output`, `format-patch -o`, `bundle create`). */
function gitWriteTargets(args: readonly string[]): string[] {
  const subcommandAt = args.findIndex((word) => !word.startsWith('-'));
  const subcommand = args[subcommandAt];
  const rest = args.slice(subcommandAt + 1);
  const targets = optionValues(rest, '', '--output');
  if (subcommand === 'format-patch') targets.push(...optionValues(rest, 'o', '--output-directory'));
  if (subcommand === 'archive') targets.push(...optionValues(rest, 'o', '--output'));
  if (subcommand === 'bundle' && rest[0] === 'create' && rest[1] !== undefined) targets.push(rest[1]);
  return [...new Set(targets)];
}
