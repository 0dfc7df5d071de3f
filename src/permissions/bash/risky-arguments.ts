import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import { isDynamicWord } from './shell-contract.ts';

/**
 * Arguments that turn an ordinary-looking command into "run this program" or "write that file".
 * A prefix or wildcard allow rule (`Bash(git diff *)`) never covers a subcommand that carries one:
 * the user approved a command, not whatever its options can launch.
 */

interface RiskyOptions {
  /** Long options; an unambiguous abbreviation counts too (`--upload-pa`). */
  long?: readonly string[];
  /** Single-letter options, alone, clustered or with an attached value. */
  short?: readonly string[];
  /** Further checks on the whole argument list. */
  check?: (args: readonly string[]) => string | undefined;
}

const gitGlobalRisky = new Set([
  '-c',
  '-C',
  '--config-env',
  '--exec-path',
  '--git-dir',
  '--work-tree',
  '-p',
  '--paginate',
]);

function gitCheck(args: readonly string[]): string | undefined {
  for (const arg of args) {
    if (!arg.startsWith('-')) break;
    const name = arg.split('=')[0] ?? arg;
    if (gitGlobalRisky.has(name) || (name.startsWith('-c') && name.length > 2)) {
      return `git option ${name} changes configuration or where git runs`;
    }
  }
  if (args.some((arg) => /(^|[=\s])ext::/.test(arg) || arg.startsWith('ext::')))
    return 'the ext:: transport runs a program';
  const subcommand = args.find((arg) => !arg.startsWith('-'));
  if (subcommand && ['fetch', 'clone', 'pull', 'ls-remote', 'archive', 'submodule'].includes(subcommand)) {
    if (args.some((arg) => arg === '-u' || /^-u./.test(arg)))
      return '-u names the program git runs on the remote side';
  }
  if (subcommand === 'difftool' || subcommand === 'mergetool') return `git ${subcommand} runs external tools`;
  return undefined;
}

function sedCheck(args: readonly string[]): string | undefined {
  const scripts: string[] = [];
  let sawScript = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '-e' || arg === '--expression') scripts.push(args[++index] ?? '');
    else if (arg.startsWith('--expression=')) scripts.push(arg.slice('--expression='.length));
    else if (arg === '-f' || arg.startsWith('--file')) return 'a sed script file cannot be checked';
    else if (!arg.startsWith('-') && !sawScript && scripts.length === 0) {
      scripts.push(arg);
      sawScript = true;
    }
  }
  const safe = /^(?:(?:\d+|\$)(?:,(?:\d+|\$))?p|p|s(.)(?:(?!\1).|\\.)*\1(?:(?!\1).|\\.)*\1[gpiImM1-9]*)$/;
  for (const script of scripts) {
    for (const part of script
      .split(/[;\n]/)
      .map((piece) => piece.trim())
      .filter(Boolean)) {
      if (!safe.test(part)) return `the sed expression "${part}" may write, read or execute files`;
    }
  }
  return undefined;
}

/** Per program: options that execute or write. */
const riskyOptions: Readonly<Record<string, RiskyOptions>> = {
  git: {
    long: [
      '--upload-pack',
      '--receive-pack',
      '--exec',
      '--output',
      '--ext-diff',
      '--textconv',
      '--open-files-in-pager',
      '--extcmd',
      '--tool',
      '--template',
      '--config',
    ],
    short: ['O'],
    check: gitCheck,
  },
  rg: { long: ['--pre', '--hostname-bin', '--search-zip'] },
  find: {
    check: (args) =>
      args.find((arg) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(arg)) &&
      'find can run programs or write files',
  },
  tar: {
    long: [
      '--checkpoint-action',
      '--to-command',
      '--use-compress-program',
      '--info-script',
      '--new-volume-script',
      '--rsh-command',
      '--rmt-command',
      '--index-file',
    ],
    short: ['I', 'F'],
  },
  ssh: { short: ['o', 'F'], long: [] },
  scp: { short: ['o', 'F', 'S'] },
  rsync: { short: ['e'], long: ['--rsh', '--rsync-path'] },
  sed: { check: sedCheck },
  less: {
    check: (args) =>
      args.find((arg) => arg.startsWith('+') || /^-o|^-O|^--log-file|^--LOG-FILE/.test(arg)) &&
      'less can run commands or write logs',
  },
  more: { check: (args) => args.find((arg) => arg.startsWith('+')) && 'more can run commands' },
  man: { short: ['P', 'H'], long: ['--pager', '--html', '--browser'] },
  sort: { short: ['o'], long: ['--output', '--compress-program'] },
  tree: { short: ['o', 'R'], long: ['--output'] },
  curl: { short: ['o', 'K', 'O'], long: ['--output', '--config', '--remote-name'] },
  wget: {
    short: ['O', 'o', 'i'],
    long: ['--output-document', '--output-file', '--use-askpass', '--execute'],
  },
  zip: { short: ['T'], long: ['--unzip-command', '--test'] },
  npm: { long: ['--script-shell', '--node-options'] },
  awk: {
    check: (args) =>
      args.some((arg) => /system\s*\(|\|\s*"|>\s*"|getline/.test(arg))
        ? 'the awk program runs commands or touches files'
        : undefined,
  },
};

/** Programs that run another command in a way a prefix rule can never vouch for. */
const neverPrefixApproved = new Set([
  'watch',
  'setsid',
  'ionice',
  'flock',
  'eval',
  'exec',
  'source',
  '.',
  'sudo',
  'doas',
  'su',
]);

function matchesLong(arg: string, options: readonly string[]): string | undefined {
  if (!arg.startsWith('--')) return undefined;
  const name = arg.split('=')[0] ?? arg;
  if (name.length < 5) return options.find((option) => option === name);
  return options.find((option) => option.startsWith(name));
}

function matchesShort(arg: string, letters: readonly string[]): string | undefined {
  if (!/^-[A-Za-z]/.test(arg) || arg.startsWith('--')) return undefined;
  const cluster = /^-([A-Za-z]+)/.exec(arg)?.[1] ?? '';
  return letters.find((letter) => cluster.includes(letter));
}

/**
 * Why a prefix or wildcard allow rule may not cover this subcommand, or undefined when it may.
 * Covers runtime-valued words, program-valued and file-writing options, and commands that run others.
 */
export function allowRuleBlocker(subcommand: AnalyzedSubcommandLike): string | undefined {
  const [program = '', ...args] = subcommand.argv;
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (neverPrefixApproved.has(name)) return `${name} runs other commands`;
  if (subcommand.argv.some(isDynamicWord)) return 'part of the command is only known when it runs';
  if (subcommand.origin !== undefined && subcommand.origin !== 'top')
    return `it runs inside ${subcommand.origin}`;
  const options = Object.hasOwn(riskyOptions, name) ? riskyOptions[name] : undefined;
  if (!options) return undefined;
  for (const arg of args) {
    if (arg === '--') break;
    const long = options.long ? matchesLong(arg, options.long) : undefined;
    if (long) return `${name} ${long} runs a program or writes a file`;
    const short = options.short ? matchesShort(arg, options.short) : undefined;
    if (short) return `${name} -${short} runs a program or writes a file`;
  }
  return options.check?.(args) || undefined;
}
