import { own } from '../own.ts';
import type { ArgKind } from '../types.ts';
import { type FlagTable, flagTable, hasFlag, type ParsedArgs, type ParsedFlag, parseArgs } from './flags.ts';

/**
 * Read-only git: an allowlist of subcommands, each with the options that cannot write files, run a
 * program (pager, external diff, textconv, gpg, ssh transport) or rewrite refs. Global options that
 * move git into another repository (`-C`, `--git-dir`, `--work-tree`) or inject configuration
 * (`-c` with anything but display settings) make the command not read-only, because another
 * repository's config can name programs git runs (core.fsmonitor, diff.external).
 */

const diffOptions = withOptionalShort(
  flagTable(
    'pusazRbwWN',
    [
      '--patch',
      '--no-patch',
      '--raw',
      '--patch-with-raw',
      '--patch-with-stat',
      '--numstat',
      '--shortstat',
      '--summary',
      '--name-only',
      '--name-status',
      '--minimal',
      '--patience',
      '--histogram',
      '--full-index',
      '--binary',
      '--no-color',
      '--no-renames',
      '--text',
      '--ignore-space-at-eol',
      '--ignore-space-change',
      '--ignore-all-space',
      '--ignore-blank-lines',
      '--ignore-cr-at-eol',
      '--function-context',
      '--exit-code',
      '--quiet',
      '--no-ext-diff',
      '--no-textconv',
      '--no-prefix',
      '--default-prefix',
      '--check',
      '--pickaxe-all',
      '--pickaxe-regex',
      '--irreversible-delete',
      '--find-copies-harder',
      '--no-relative',
      '--indent-heuristic',
      '--no-indent-heuristic',
      '--color-moved-ws',
      '--compact-summary',
      '--no-stat',
      '--ita-invisible-in-index',
      '--ita-visible-in-index',
      '--cumulative',
      '--no-abbrev',
    ],
    'USGlO',
    [
      '--diff-filter',
      '--src-prefix',
      '--dst-prefix',
      '--line-prefix',
      '--inter-hunk-context',
      '--diff-algorithm',
      '--word-diff-regex',
      '--ignore-matching-lines',
      '--anchored',
      '--stat-width',
      '--stat-name-width',
      '--stat-count',
      '--stat-graph-width',
      '--output-indicator-new',
      '--output-indicator-old',
      '--output-indicator-context',
    ],
    [
      '--stat',
      '--dirstat',
      '--unified',
      '--color',
      '--color-words',
      '--color-moved',
      '--word-diff',
      '--find-renames',
      '--find-copies',
      '--break-rewrites',
      '--relative',
      '--abbrev',
      '--submodule',
      '--ignore-submodules',
      '--ws-error-highlight',
    ],
  ),
  'MCB',
);

const logOptions = flagTable(
  'igEFP',
  [
    '--oneline',
    '--all',
    '--reverse',
    '--graph',
    '--first-parent',
    '--merges',
    '--no-merges',
    '--no-walk',
    '--follow',
    '--no-decorate',
    '--abbrev-commit',
    '--no-abbrev-commit',
    '--relative-date',
    '--left-right',
    '--cherry-pick',
    '--cherry-mark',
    '--cherry',
    '--ancestry-path',
    '--topo-order',
    '--date-order',
    '--author-date-order',
    '--source',
    '--boundary',
    '--simplify-by-decoration',
    '--full-history',
    '--dense',
    '--sparse',
    '--simplify-merges',
    '--parents',
    '--children',
    '--walk-reflogs',
    '--regexp-ignore-case',
    '--extended-regexp',
    '--fixed-strings',
    '--perl-regexp',
    '--basic-regexp',
    '--all-match',
    '--invert-grep',
    '--remove-empty',
    '--mailmap',
    '--no-mailmap',
    '--use-mailmap',
    '--no-use-mailmap',
    '--log-size',
    '--count',
    '--objects',
    '--in-commit-order',
    '--no-notes',
    '--not',
    '--stdin',
    '--bisect',
    '--reflog',
    '--single-worktree',
    '--exclude-first-parent-only',
    '--show-pulls',
    '--no-min-parents',
    '--no-max-parents',
    '--standard-notes',
    '--no-standard-notes',
    '--timestamp',
    '--left-only',
    '--right-only',
    '--shortstat',
    '--show-linear-break',
    '--clear-decorations',
  ],
  'nL',
  [
    '--max-count',
    '--skip',
    '--since',
    '--after',
    '--until',
    '--before',
    '--author',
    '--committer',
    '--grep',
    '--grep-reflog',
    '--date',
    '--encoding',
    '--min-parents',
    '--max-parents',
    '--since-as-filter',
    '--exclude',
    '--decorate-refs',
    '--decorate-refs-exclude',
    '--glob',
    '--expand-tabs',
  ],
  [
    '--pretty',
    '--format',
    '--decorate',
    '--branches',
    '--tags',
    '--remotes',
    '--notes',
    '--show-notes',
    '--no-expand-tabs',
  ],
);

/** Marks short options whose value can only be attached (`-M50%`). */
function withOptionalShort(table: FlagTable, letters: string): FlagTable {
  for (const letter of letters) table[`-${letter}`] = 'optional';
  return table;
}

function merge(...tables: FlagTable[]): FlagTable {
  return Object.assign({}, ...tables);
}

interface GitSubcommand {
  flags: FlagTable;
  numeric?: boolean;
  validate?: (parsed: ParsedArgs) => boolean;
}

// Filters such as --contains imply --list, so the words after them are patterns, never new refs.
const listingOnly = (parsed: ParsedArgs): boolean =>
  parsed.operands.length === 0 ||
  hasFlag(parsed, '-l', '--list') ||
  hasFlag(parsed, '--contains', '--no-contains') ||
  hasFlag(parsed, '--merged', '--no-merged') ||
  hasFlag(parsed, '--points-at');

/** A configuration key as `git config KEY` reads it: `section.name` or `section.subsection.name`. */
const configKey = /^[A-Za-z][A-Za-z0-9-]*\.(?:[^\n=]*\.)?[A-Za-z][A-Za-z0-9-]*$/;

/** Options of `git config KEY` that choose where or how a value is read. */
function isReadingConfigFlag(flag: ParsedFlag): boolean {
  return [
    '--global',
    '--system',
    '--local',
    '--worktree',
    '--file',
    '-f',
    '--blob',
    '--type',
    '--bool',
    '--int',
    '--bool-or-int',
    '--path',
    '--expiry-date',
    '--includes',
    '--no-includes',
    '--show-origin',
    '--show-scope',
    '--null',
    '-z',
    '--default',
  ].includes(flag.flag);
}

const remoteLooksLikeUrl = /[:@/\\]|^\.|^[~$]/;

const subcommands: Record<string, GitSubcommand> = {
  status: {
    flags: withOptionalShort(
      flagTable(
        'sbvz',
        [
          '--short',
          '--branch',
          '--long',
          '--verbose',
          '--show-stash',
          '--no-ahead-behind',
          '--ahead-behind',
          '--renames',
          '--no-renames',
          '--no-column',
          '--null',
        ],
        '',
        [],
        [
          '--porcelain',
          '--untracked-files',
          '--ignored',
          '--ignore-submodules',
          '--column',
          '--find-renames',
        ],
      ),
      'u',
    ),
  },
  diff: {
    flags: merge(
      diffOptions,
      flagTable('123', [
        '--cached',
        '--staged',
        '--no-index',
        '--merge-base',
        '--ours',
        '--theirs',
        '--base',
      ]),
    ),
    numeric: false,
  },
  log: { flags: merge(diffOptions, logOptions), numeric: true },
  show: { flags: merge(diffOptions, logOptions), numeric: true },
  whatchanged: { flags: merge(diffOptions, logOptions), numeric: true },
  shortlog: {
    flags: merge(
      logOptions,
      flagTable('sne', ['--summary', '--numbered', '--email'], '', [], ['--group', '--committer']),
    ),
    numeric: true,
  },
  reflog: {
    flags: merge(logOptions, diffOptions),
    numeric: true,
    validate: (parsed) => !['expire', 'delete', 'drop'].includes(parsed.operands[0] ?? ''),
  },
  'rev-list': { flags: merge(logOptions, flagTable('', ['--count', '--objects', '--all'])), numeric: true },
  branch: {
    flags: flagTable(
      'alrvi',
      [
        '--all',
        '--list',
        '--remotes',
        '--verbose',
        '--show-current',
        '--ignore-case',
        '--no-column',
        '--omit-empty',
        '--no-color',
      ],
      '',
      ['--sort', '--format', '--points-at'],
      ['--contains', '--no-contains', '--merged', '--no-merged', '--column', '--color', '--abbrev'],
    ),
    validate: listingOnly,
  },
  tag: {
    flags: flagTable(
      'li',
      ['--list', '--ignore-case', '--no-column', '--omit-empty'],
      'n',
      ['--sort', '--format', '--points-at'],
      ['--contains', '--no-contains', '--merged', '--no-merged', '--column', '--color'],
    ),
    validate: listingOnly,
  },
  'rev-parse': {
    flags: flagTable(
      'q',
      [
        '--show-toplevel',
        '--git-dir',
        '--git-common-dir',
        '--absolute-git-dir',
        '--is-inside-work-tree',
        '--is-inside-git-dir',
        '--is-bare-repository',
        '--is-shallow-repository',
        '--show-prefix',
        '--show-cdup',
        '--show-superproject-working-tree',
        '--verify',
        '--quiet',
        '--symbolic',
        '--symbolic-full-name',
        '--all',
        '--local-env-vars',
        '--shared-index-path',
        '--show-object-format',
        '--sq',
        '--not',
        '--revs-only',
        '--no-revs',
        '--flags',
        '--no-flags',
      ],
      '',
      ['--default', '--prefix', '--git-path', '--since', '--after', '--until', '--before', '--path-format'],
      ['--short', '--abbrev-ref', '--branches', '--tags', '--remotes', '--glob', '--disambiguate'],
    ),
  },
  'ls-files': {
    flags: flagTable(
      'cdmoiskutvfz',
      [
        '--cached',
        '--deleted',
        '--modified',
        '--others',
        '--ignored',
        '--stage',
        '--killed',
        '--unmerged',
        '--directory',
        '--no-empty-directory',
        '--eol',
        '--deduplicate',
        '--exclude-standard',
        '--error-unmatch',
        '--full-name',
        '--recurse-submodules',
        '--resolve-undo',
        '--sparse',
        '--debug',
      ],
      'xX',
      ['--exclude', '--exclude-from', '--exclude-per-directory', '--with-tree', '--format'],
      ['--abbrev'],
    ),
  },
  'ls-tree': {
    flags: flagTable(
      'rdtlz',
      ['--long', '--name-only', '--name-status', '--object-only', '--full-name', '--full-tree'],
      '',
      ['--format'],
      ['--abbrev'],
    ),
  },
  blame: {
    flags: flagTable(
      'bltfnscepwM',
      [
        '--root',
        '--show-stats',
        '--porcelain',
        '--line-porcelain',
        '--incremental',
        '--show-name',
        '--show-number',
        '--show-email',
        '--reverse',
        '--first-parent',
        '--progress',
        '--no-progress',
        '--color-lines',
        '--color-by-age',
        '--minimal',
        '--no-textconv',
      ],
      'LSC',
      ['--since', '--contents', '--date', '--encoding', '--ignore-rev', '--ignore-revs-file'],
      ['--abbrev'],
    ),
  },
  'ls-remote': {
    flags: flagTable(
      'qht',
      ['--heads', '--tags', '--branches', '--refs', '--quiet', '--exit-code', '--get-url', '--symref'],
      '',
      ['--sort'],
    ),
    // A URL or path makes git contact (or run a transport for) a place the repository does not name.
    validate: (parsed) => parsed.operands.slice(0, 1).every((remote) => !remoteLooksLikeUrl.test(remote)),
  },
  remote: {
    flags: flagTable('v', ['--verbose']),
    validate: (parsed) => {
      const [action, ...rest] = parsed.operands;
      if (action === undefined) return true;
      if (action === 'get-url') return rest.length === 1;
      return false;
    },
  },
  config: {
    flags: flagTable(
      'lz',
      [
        '--get',
        '--get-all',
        '--get-regexp',
        '--get-urlmatch',
        '--list',
        '--show-origin',
        '--show-scope',
        '--name-only',
        '--null',
        '--global',
        '--system',
        '--local',
        '--worktree',
        '--includes',
        '--no-includes',
        '--bool',
        '--int',
        '--bool-or-int',
        '--path',
        '--expiry-date',
        '--fixed-value',
      ],
      'f',
      ['--file', '--blob', '--type', '--default'],
    ),
    validate: (parsed) => {
      const first = parsed.operands[0];
      if (first === 'get' || first === 'list') return true;
      // `git config KEY` with one operand reads the key; a second operand would set it.
      if (
        parsed.flags.length === parsed.flags.filter(isReadingConfigFlag).length &&
        parsed.operands.length === 1
      )
        return configKey.test(first ?? '');
      if (hasFlag(parsed, '-l', '--list')) return parsed.operands.length === 0;
      if (hasFlag(parsed, '--get', '--get-all', '--get-regexp', '--get-urlmatch'))
        return parsed.operands.length <= 2;
      return false;
    },
  },
  stash: {
    flags: merge(diffOptions, logOptions),
    validate: (parsed) => parsed.operands[0] === 'list' || parsed.operands[0] === 'show',
  },
  describe: {
    flags: flagTable(
      '',
      ['--tags', '--all', '--long', '--always', '--exact-match', '--contains', '--first-parent', '--debug'],
      '',
      ['--match', '--exclude', '--candidates'],
      ['--abbrev', '--dirty', '--broken'],
    ),
  },
  'cat-file': {
    flags: flagTable(
      'tsepP',
      ['--batch-check', '--allow-unknown-type', '--follow-symlinks', '--use-mailmap', '--no-use-mailmap'],
      '',
      [],
      ['--batch'],
    ),
  },
  'merge-base': {
    flags: flagTable('a', ['--all', '--octopus', '--independent', '--is-ancestor', '--fork-point']),
  },
  'show-ref': {
    flags: flagTable(
      'dsq',
      ['--head', '--heads', '--tags', '--branches', '--dereference', '--verify', '--quiet', '--exists'],
      '',
      [],
      ['--hash', '--abbrev'],
    ),
  },
  'for-each-ref': {
    flags: flagTable(
      's',
      ['--shell', '--perl', '--python', '--tcl', '--ignore-case', '--omit-empty', '--include-root-refs'],
      '',
      ['--count', '--format', '--sort', '--points-at', '--exclude', '--start-after'],
      ['--merged', '--no-merged', '--contains', '--no-contains', '--color'],
    ),
  },
  grep: {
    flags: flagTable(
      'iIvwalLcnhHoqzEFGPepWr',
      [
        '--cached',
        '--untracked',
        '--no-index',
        '--no-exclude-standard',
        '--exclude-standard',
        '--recurse-submodules',
        '--text',
        '--ignore-case',
        '--word-regexp',
        '--invert-match',
        '--full-name',
        '--extended-regexp',
        '--basic-regexp',
        '--perl-regexp',
        '--fixed-strings',
        '--line-number',
        '--column',
        '--files-with-matches',
        '--name-only',
        '--files-without-match',
        '--null',
        '--only-matching',
        '--count',
        '--no-color',
        '--break',
        '--heading',
        '--show-function',
        '--function-context',
        '--and',
        '--or',
        '--not',
        '--all-match',
        '--quiet',
        '--no-recursive',
        '--recursive',
      ],
      'ABCfem',
      [
        '--after-context',
        '--before-context',
        '--context',
        '--threads',
        '--max-depth',
        '--max-count',
        '--regexp',
      ],
      ['--color'],
    ),
    numeric: true,
  },
  'check-ignore': {
    flags: flagTable('qvnz', ['--quiet', '--verbose', '--non-matching', '--no-index', '--stdin']),
  },
  'check-attr': { flags: flagTable('az', ['--all', '--cached', '--stdin'], '', ['--source']) },
  'name-rev': {
    flags: flagTable(
      '',
      ['--tags', '--all', '--name-only', '--no-undefined', '--always', '--annotate-stdin'],
      '',
      ['--refs', '--exclude'],
    ),
  },
  'diff-tree': {
    flags: merge(
      diffOptions,
      flagTable('rtmcv', ['--root', '--no-commit-id', '--stdin', '--combined-all-paths']),
    ),
  },
  'diff-index': { flags: merge(diffOptions, flagTable('m', ['--cached', '--merge-base'])) },
  'diff-files': { flags: merge(diffOptions, flagTable('qc0123')) },
  cherry: { flags: flagTable('v', [], '', [], ['--abbrev']) },
  'count-objects': { flags: flagTable('vH', ['--verbose', '--human-readable']) },
  worktree: {
    flags: flagTable('v', ['--porcelain', '--verbose'], 'z'),
    validate: (parsed) => parsed.operands[0] === 'list' && parsed.operands.length === 1,
  },
  version: { flags: flagTable('', ['--build-options']) },
  // One operand reads where a symbolic ref points; a second operand, -d or -m would change it.
  'symbolic-ref': {
    flags: flagTable('q', ['--quiet', '--short', '--recurse', '--no-recurse']),
    validate: (parsed) => parsed.operands.length === 1,
  },
  'show-branch': {
    flags: flagTable(
      'ar',
      [
        '--all',
        '--remotes',
        '--current',
        '--topo-order',
        '--date-order',
        '--sparse',
        '--list',
        '--independent',
        '--merge-base',
        '--no-name',
        '--sha1-name',
        '--topics',
        '--no-color',
      ],
      '',
      [],
      ['--more', '--color', '--reflog'],
    ),
  },
  'range-diff': {
    flags: merge(
      diffOptions,
      flagTable('', ['--no-dual-color', '--left-only', '--right-only'], '', ['--creation-factor']),
    ),
  },
};

const globalFlags = new Set([
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-replace-objects',
  '--no-lazy-fetch',
  '--no-advice',
]);

/** `-c` settings that only change how output looks, or switch helper programs off. */
function isSafeConfig(setting: string): boolean {
  const equals = setting.indexOf('=');
  const key = (equals === -1 ? setting : setting.slice(0, equals)).toLowerCase();
  const value = equals === -1 ? 'true' : setting.slice(equals + 1);
  if (
    /^color\.[a-z.]+$|^core\.quotepath$|^core\.abbrev$|^column\.ui$|^advice\.[a-z]+$|^log\.(?:decorate|date|abbrevcommit|showroot)$|^i18n\.logoutputencoding$|^diff\.(?:noprefix|mnemonicprefix|renames|algorithm|relative|context|interhunkcontext|statgraphwidth)$/.test(
      key,
    )
  ) {
    return true;
  }
  if (key === 'core.fsmonitor') return value === '' || value === 'false';
  if (key === 'diff.external' || key === 'core.pager')
    return value === '' || (key === 'core.pager' && value === 'cat');
  return false;
}

/** Read-only check for `git …` (argv without the leading `git`). */
export function isReadOnlyGit(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  if (kinds.some((kind) => kind !== 'literal')) return false;
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index] ?? '';
    if (globalFlags.has(word)) continue;
    if (word === '-c') {
      const setting = args[index + 1];
      if (setting === undefined || !isSafeConfig(setting)) return false;
      index++;
      continue;
    }
    if (word === '--version' && index === args.length - 1) return true;
    if (word.startsWith('-')) return false;
    break;
  }
  const name = args[index];
  if (name === undefined) return false;
  const subcommand = own(subcommands, name);
  if (!subcommand) return false;
  const rest = args.slice(index + 1);
  const parsed = parseArgs(rest, kinds.slice(index + 1), {
    flags: subcommand.flags,
    ...(subcommand.numeric ? { numeric: true } : {}),
  });
  if (!parsed) return false;
  return subcommand.validate ? subcommand.validate(parsed) : true;
}
