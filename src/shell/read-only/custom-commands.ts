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

function less(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  // `+cmd` runs a less command at start, and `!` in one is a shell escape.
  if (args.some((word) => word.startsWith('+'))) return false;
  return parseArgs(args, kinds, { flags: lessFlags }) !== null;
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

function tree(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  return (
    parseArgs(args, kinds, {
      flags: flagTable(
        'adlfxqNQpugshDFvtcUrCnAS',
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
          '--noreport',
        ],
        'LPIJX',
        ['--filelimit', '--charset', '--sort', '--timefmt', '--fromfile', '--hintro', '--houtro'],
      ),
      anyArgSafe: false,
    }) !== null && !args.some((word) => word === '-J' || word === '-X')
  );
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
