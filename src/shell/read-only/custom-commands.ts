import { own } from '../own.ts';
import type { ArgKind } from '../types.ts';
import { isReadOnlyFind } from './find.ts';
import { flagTable, hasFlag, parseArgs } from './flags.ts';
import { isReadOnlyGit } from './git.ts';
import { isReadOnlyAwk, isReadOnlyJq, isReadOnlyRg, isReadOnlySort } from './search-tools.ts';
import { isReadOnlySed } from './sed.ts';
import type { CustomCheck } from './spec.ts';
import { shellBuiltinChecks } from './shell-builtins.ts';

const allLiteral = (kinds: readonly ArgKind[]): boolean => kinds.every((kind) => kind === 'literal');

function printf(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  let index = 0;
  if (args[0] === '--') index = 1;
  const format = args[index];
  // `printf -v NAME` assigns a shell variable; an expanded format could become `-v`.
  return format !== undefined && kinds[index] === 'literal' && !format.startsWith('-');
}

function date(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  const parsed = parseArgs(args, kinds, {
    flags: flagTable(
      'uR',
      ['--utc', '--universal', '--rfc-email', '--debug'],
      'drf',
      ['--date', '--reference', '--file', '--rfc-3339'],
      ['--iso-8601'],
    ),
  });
  if (!parsed) return false;
  // Anything but a `+FORMAT` operand sets the clock.
  return parsed.operands.every((operand) => operand.startsWith('+'));
}

const lessFlags = flagTable(
  'aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~',
  [
    '--quit-at-eof',
    '--QUIT-AT-EOF',
    '--quit-if-one-screen',
    '--no-init',
    '--ignore-case',
    '--IGNORE-CASE',
    '--LINE-NUMBERS',
    '--line-numbers',
    '--RAW-CONTROL-CHARS',
    '--raw-control-chars',
    '--chop-long-lines',
    '--squeeze-blank-lines',
    '--quiet',
    '--silent',
    '--no-lessopen',
    '--long-prompt',
    '--status-column',
    '--mouse',
    '--tilde',
  ],
  'bhjpPxyz',
  [
    '--buffers',
    '--max-back-scroll',
    '--jump-target',
    '--pattern',
    '--prompt',
    '--tabs',
    '--max-forw-scroll',
    '--window',
    '--shift',
  ],
);

const lessNumber = /^\d+$/;
const lessText = /^[^$]*$/;

/**
 * less reads an attached value (`-x4`, `--tabs=4`, `-Pprompt`) only as far as its characters go:
 * digits for a number, digits and commas for tab stops, up to a `$` for text. What follows is read
 * as more options, so `-x4klesskey` is `-x4 -k lesskey`, and a lesskey file can set LESSOPEN, a
 * command less runs. Each attached value must be one of these shapes whole.
 */
export const lessAttachedShapes: Readonly<Record<string, RegExp>> = {
  '-b': lessNumber,
  '--buffers': lessNumber,
  '-h': lessNumber,
  '--max-back-scroll': lessNumber,
  '-y': lessNumber,
  '--max-forw-scroll': lessNumber,
  '-z': lessNumber,
  '--window': lessNumber,
  '--shift': lessNumber,
  '-x': /^\d+(?:,\d+)*$/,
  '--tabs': /^\d+(?:,\d+)*$/,
  '-j': /^(?:\d+(?:\.\d*)?|\.\d+)$/,
  '--jump-target': /^(?:\d+(?:\.\d*)?|\.\d+)$/,
  '-p': lessText,
  '--pattern': lessText,
  '-P': lessText,
  '--prompt': lessText,
};

/**
 * The first word whose attached less value runs past its shape (`-x4klesskey`, `--tabs=4k…`,
 * `-Pa$k…`), for checks that see less's words without its option table (prefix rules).
 */
export function lessValueOverrun(args: readonly string[]): string | undefined {
  for (const word of args) {
    if (word === '--') return undefined;
    if (word.startsWith('--')) {
      const equals = word.indexOf('=');
      const shape = equals === -1 ? undefined : own(lessAttachedShapes, word.slice(0, equals));
      if (shape !== undefined && !shape.test(word.slice(equals + 1))) return word;
      continue;
    }
    if (!word.startsWith('-')) continue;
    for (let position = 1; position < word.length; position++) {
      const shape = own(lessAttachedShapes, `-${word[position] ?? ''}`);
      if (shape === undefined) continue;
      const value = word.slice(position + 1);
      if (value !== '' && !shape.test(value)) return word;
      break;
    }
  }
  return undefined;
}

const lessRules = { flags: lessFlags, attachedShapes: lessAttachedShapes };

function less(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  // `+cmd` runs a less command at start, and `!` in one is a shell escape.
  if (args.some((word) => word.startsWith('+'))) return false;
  return parseArgs(args, kinds, lessRules) !== null;
}

function man(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  const parsed = parseArgs(args, kinds, {
    flags: flagTable(
      'afkwWK',
      ['--all', '--whatis', '--apropos', '--where', '--path', '--where-cat', '--global-apropos'],
      'sSL',
      ['--sections', '--locale'],
    ),
  });
  return parsed?.operands.every((page) => /^[A-Za-z0-9_.:+-]+$/.test(page)) === true;
}

const psDashFlags = flagTable(
  'AaCdeEfFHjlLNTwxyMZcmrV',
  ['--forest', '--no-headers', '--headers', '--deselect', '--cumulative', '--info'],
  'ognpstuUGOq',
  [
    '--sort',
    '--pid',
    '--ppid',
    '--user',
    '--User',
    '--group',
    '--Group',
    '--format',
    '--cols',
    '--columns',
    '--rows',
    '--sid',
    '--tty',
    '--quick-pid',
  ],
);

function ps(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  if (!allLiteral(kinds)) return false;
  const dashArgs: string[] = [];
  for (const word of args) {
    if (word.startsWith('-')) dashArgs.push(word);
    // BSD-style letters; `e` and `E` add each process's environment to the output.
    else if (!/^[auxwfjlmrTSvhHcnLsGgp0-9,]+$/.test(word)) return false;
  }
  const parsed = parseArgs(
    dashArgs,
    dashArgs.map(() => 'literal' as const),
    { flags: psDashFlags },
  );
  if (!parsed) return false;
  return parsed.flags.every((entry) => !/env/i.test(entry.value ?? ''));
}

/**
 * tree parses its own options: each value-taking letter takes the next word and the cluster goes
 * on (`-Lo 2 out` is `-L 2 -o out`); `-J`, `-X` (JSON, XML output) and `--fromfile` take none.
 */
const treeRules = {
  flags: flagTable(
    'adlfxqNQpugshDFvtcUrCnASJX',
    [
      '--noreport',
      '--dirsfirst',
      '--filesfirst',
      '--prune',
      '--inodes',
      '--device',
      '--du',
      '--si',
      '--gitignore',
      '--matchdirs',
      '--ignore-case',
      '--fromfile',
    ],
    'LPI',
    ['--filelimit', '--charset', '--sort', '--timefmt', '--hintro', '--houtro'],
  ),
  anyArgSafe: false,
  valuesFromNextWord: true,
};

function tree(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  return parseArgs(args, kinds, treeRules) !== null;
}

function xxd(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  const parsed = parseArgs(args, kinds, {
    flags: flagTable(
      'abCeEiprudR',
      ['-ps', '-plain', '-postscript', '-bits', '-include', '-uppercase', '-autoskip'],
      'cglnos',
      [],
    ),
  });
  // A second operand is the output file.
  return parsed !== null && parsed.operands.length <= 1;
}

const harmlessTeeTargets = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** Commands with their own read-only check. */
export const customChecks: Record<string, CustomCheck> = {
  ...shellBuiltinChecks,
  git: { custom: isReadOnlyGit },
  sed: { custom: isReadOnlySed },
  find: { custom: isReadOnlyFind },
  rg: { custom: isReadOnlyRg },
  sort: { custom: isReadOnlySort },
  jq: { custom: isReadOnlyJq },
  awk: { custom: isReadOnlyAwk },
  gawk: { custom: isReadOnlyAwk },
  mawk: { custom: isReadOnlyAwk },
  nawk: { custom: isReadOnlyAwk },
  echo: { custom: () => true, anyArgSafe: true },
  printf: { custom: printf },
  date: { custom: date },
  less: { custom: less },
  more: { custom: less },
  man: { custom: man },
  ps: { custom: ps },
  tree: { custom: tree },
  xxd: { custom: xxd },
  test: { custom: (args) => !args.includes('-v') && !args.some((word) => word.includes('[')) },
  hostname: {
    custom: (args, kinds) => {
      const parsed = parseArgs(args, kinds, {
        flags: flagTable('fsdiIaAy', [
          '--fqdn',
          '--long',
          '--short',
          '--domain',
          '--ip-address',
          '--all-ip-addresses',
          '--alias',
          '--all-fqdns',
        ]),
      });
      return parsed !== null && parsed.operands.length === 0 && !hasFlag(parsed, '-F');
    },
  },
  env: { custom: (args) => args.every((word) => word === '-0' || word === '--null') },
  tee: {
    custom: (args, kinds) => {
      const parsed = parseArgs(args, kinds, {
        flags: flagTable('aip', ['--append', '--ignore-interrupts'], '', [], ['--output-error']),
      });
      return parsed?.operands.every((target) => harmlessTeeTargets.has(target)) === true;
    },
  },
};
