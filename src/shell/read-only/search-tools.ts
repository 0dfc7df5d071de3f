import type { ArgKind } from '../types.ts';
import { flagTable, hasFlag, parseArgs } from './flags.ts';

/** ripgrep without `--pre`, `--pre-glob`, `--hostname-bin` or `--search-zip` (they run programs). */
const rgFlags = flagTable(
  'iIsSwxvclnNHoqFPaLUp0bhuV.',
  [
    '--ignore-case',
    '--smart-case',
    '--case-sensitive',
    '--word-regexp',
    '--line-regexp',
    '--invert-match',
    '--count',
    '--count-matches',
    '--files-with-matches',
    '--files-without-match',
    '--files',
    '--line-number',
    '--no-line-number',
    '--with-filename',
    '--no-filename',
    '--only-matching',
    '--quiet',
    '--fixed-strings',
    '--perl-regexp',
    '--pcre2',
    '--text',
    '--follow',
    '--multiline',
    '--multiline-dotall',
    '--pretty',
    '--null',
    '--null-data',
    '--byte-offset',
    '--hidden',
    '--no-hidden',
    '--no-ignore',
    '--no-ignore-vcs',
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-parent',
    '--no-ignore-exclude',
    '--no-ignore-files',
    '--ignore',
    '--unrestricted',
    '--vimgrep',
    '--json',
    '--no-json',
    '--stats',
    '--heading',
    '--no-heading',
    '--column',
    '--no-column',
    '--trim',
    '--no-messages',
    '--no-config',
    '--sort-files',
    '--debug',
    '--trace',
    '--type-list',
    '--passthru',
    '--crlf',
    '--one-file-system',
    '--binary',
    '--no-binary',
    '--search-zip-never',
    '--max-columns-preview',
    '--glob-case-insensitive',
    '--ignore-file-case-insensitive',
    '--include-zero',
    '--no-unicode',
    '--unicode',
    '--block-buffered',
    '--line-buffered',
    '--mmap',
    '--no-mmap',
    '--invert-match',
    '--auto-hybrid-regex',
    '--no-require-git',
    '--no-filename',
  ],
  'efgtTABCmMrdjE',
  [
    '--regexp',
    '--file',
    '--glob',
    '--iglob',
    '--type',
    '--type-not',
    '--type-add',
    '--type-clear',
    '--after-context',
    '--before-context',
    '--context',
    '--max-count',
    '--max-columns',
    '--replace',
    '--max-depth',
    '--maxdepth',
    '--threads',
    '--encoding',
    '--max-filesize',
    '--ignore-file',
    '--sort',
    '--sortr',
    '--colors',
    '--color',
    '--context-separator',
    '--field-context-separator',
    '--field-match-separator',
    '--path-separator',
    '--dfa-size-limit',
    '--regex-size-limit',
    '--engine',
    '--generate',
  ],
);

/** Read-only check for `rg …`. */
export function isReadOnlyRg(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  const parsed = parseArgs(args, kinds, { flags: rgFlags });
  if (!parsed) return false;
  return !args.some((word) => word.includes('\n'));
}

const sortFlags = flagTable(
  'bdfgGhiMnRrVcCmsuz',
  [
    '--ignore-leading-blanks',
    '--dictionary-order',
    '--ignore-case',
    '--general-numeric-sort',
    '--human-numeric-sort',
    '--ignore-nonprinting',
    '--month-sort',
    '--numeric-sort',
    '--random-sort',
    '--reverse',
    '--version-sort',
    '--merge',
    '--stable',
    '--unique',
    '--zero-terminated',
    '--debug',
  ],
  'ktST',
  [
    '--key',
    '--field-separator',
    '--buffer-size',
    '--temporary-directory',
    '--parallel',
    '--batch-size',
    '--files0-from',
    '--random-source',
    '--sort',
  ],
  ['--check'],
);

/** Read-only check for `sort …`: no `-o`/`--output` and no `--compress-program`. */
export function isReadOnlySort(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  return parseArgs(args, kinds, { flags: sortFlags }) !== null;
}

/** jq names that read the environment, files or modules. */
const riskyJq =
  /\$ENV\b|\benv\b|\binput_filename\b|\$__loc__|\$__prog_args\b|\bimport\b|\binclude\b|\bmodulemeta\b|\bget_search_list\b|\bget_jq_origin\b|\bget_prog_origin\b|\bgetpath\s*\(\s*\[\s*"ENV/;

const jqPlain = new Set([
  '-r',
  '-j',
  '-c',
  '-n',
  '-e',
  '-s',
  '-S',
  '-C',
  '-M',
  '-a',
  '-R',
  '-0',
  '-h',
  '--raw-output',
  '--raw-output0',
  '--join-output',
  '--compact-output',
  '--null-input',
  '--exit-status',
  '--slurp',
  '--sort-keys',
  '--color-output',
  '--monochrome-output',
  '--ascii-output',
  '--raw-input',
  '--tab',
  '--seq',
  '--stream',
  '--stream-errors',
  '--unbuffered',
  '--args',
  '--jsonargs',
]);

/** Read-only check for `jq …`: no filter files or library paths, no environment or module access. */
export function isReadOnlyJq(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  if (kinds.some((kind) => kind !== 'literal')) return false;
  let filter: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--arg' || word === '--argjson' || word === '--slurpfile' || word === '--rawfile') {
      index += 2;
      if (index >= args.length) return false;
      continue;
    }
    if (word === '--indent') {
      index++;
      continue;
    }
    if (word.startsWith('-') && word !== '-') {
      if (jqPlain.has(word)) continue;
      if (/^-[rjcnesSCMaR0h]+$/.test(word)) continue;
      return false;
    }
    if (filter === undefined) filter = word;
  }
  return filter !== undefined && !riskyJq.test(filter);
}

/**
 * gawk's SYMTAB holds every global variable under its name, so a name computed at run time reaches
 * any of them: `SYMTAB["AR" "GV"][1] = f` (with `SYMTAB["AR" "GC"] = 2`) makes the main loop open
 * `f`, and `SYMTAB["ENVI" "RON"]` is the environment, with none of those names in the program's text.
 * A program that names SYMTAB is taken to name them all (ARGV, ARGC, ENVIRON, PROCINFO).
 */
export const awkSymbolTable = /\bSYMTAB\b/;

/** awk functions and syntax that run programs, write files or load code, or read the environment. */
const riskyAwk = /\bsystem\b|\bgetline\b|\bclose\b|\bfflush\b|\|&?|@|\bENVIRON\b|\bPROCINFO\b|\bSYMTAB\b/;

/** Read-only check for `awk …`: a literal program with no system(), pipes, getline or output redirection. */
export function isReadOnlyAwk(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  if (kinds.some((kind) => kind !== 'literal')) return false;
  const parsed = parseArgs(args, kinds, {
    flags: flagTable(
      '',
      ['--posix', '--traditional', '--sandbox', '--characters-as-bytes', '--re-interval'],
      'Fv',
      ['--field-separator', '--assign'],
    ),
    optionsFirst: true,
  });
  if (!parsed) return false;
  if (hasFlag(parsed, '-f', '--file')) return false;
  const program = parsed.operands[0];
  if (program === undefined) return false;
  const withoutLogic = program.replaceAll('||', ' ');
  if (riskyAwk.test(withoutLogic)) return false;
  // In print/printf statements `>` redirects output to a file; elsewhere it compares.
  if (/\bprintf?\b/.test(program) && program.includes('>')) return false;
  return true;
}
