import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import { isDynamicWord } from './shell-contract.ts';
import { lessValueOverrun, userChangingWrappers } from '../../../shell/index.ts';

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
    if (args.some((arg) => /^-[A-Za-z0-9]*u/.test(arg)))
      return '-u names the program git runs on the remote side';
  }
  if (subcommand === 'difftool' || subcommand === 'mergetool') return `git ${subcommand} runs external tools`;
  const rest = subcommand === undefined ? [] : args.slice(args.indexOf(subcommand) + 1);
  const letters =
    subcommand !== undefined && Object.hasOwn(gitSubcommandShort, subcommand)
      ? gitSubcommandShort[subcommand]
      : undefined;
  const short = letters ? rest.map((arg) => matchesShort(arg, letters)).find(Boolean) : undefined;
  if (short) return `git ${subcommand} -${short} sets configuration or writes a file`;
  if (subcommand !== undefined && Object.hasOwn(gitCommandRunners, subcommand)) {
    const runs = gitCommandRunners[subcommand]?.(rest);
    if (runs) return `git ${subcommand} ${runs} runs a command it is given`;
  }
  if (subcommand === 'config') {
    const key = rest.find((arg) => !arg.startsWith('-'));
    if (
      key !== undefined &&
      programValuedGitKey.test(key) &&
      rest.filter((arg) => !arg.startsWith('-')).length > 1
    )
      return `setting ${key} makes later git commands run a program`;
  }
  return undefined;
}

/** git subcommands that run a command from their arguments; each returns the option or word that does. */
const gitCommandRunners: Readonly<Record<string, (args: readonly string[]) => string | undefined>> = {
  rebase: (args) => args.find((arg) => /^-[A-Za-z0-9]*x/.test(arg) || /^--exec(=|$)/.test(arg)),
  submodule: (args) => args.find((arg) => arg === 'foreach'),
  bisect: (args) => args.find((arg) => arg === 'run'),
  'filter-branch': () => 'filter',
  'filter-repo': () => 'callback',
  'send-email': (args) =>
    args.find((arg) => /^--(sendmail-cmd|to-cmd|cc-cmd|header-cmd|smtp-server)(=|$)/.test(arg)),
  'for-each-repo': () => '--config',
  instaweb: () => 'httpd',
};

/** Short spellings of a subcommand's risky long options (`git clone -c` is `--config`, `git archive -o` is `--output`). */
const gitSubcommandShort: Readonly<Record<string, readonly string[]>> = {
  clone: ['c'],
  archive: ['o'],
};

/** Configuration keys whose value is a program git runs later (`core.fsmonitor`, `alias.x=!cmd`, …). */
const programValuedGitKey =
  /^(core\.(fsmonitor|pager|editor|sshcommand|askpass|hookspath|gitproxy)|alias\.|diff\.|merge\.|filter\.|credential|gpg\.|sequence\.editor|pager\.|include|remote\..*\.(uploadpack|receivepack|proxy)|uploadpack\.|receive\.|web\.browser|browser\.|interactive\.difffilter|sendemail\.|http\.|url\.)/i;

export function sedCheck(args: readonly string[]): string | undefined {
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

/**
 * awk options that load code (`-f`, `-i inplace`, `-l`, `-E`, `-D` debugger commands, `-W` spellings)
 * or write files (gawk `-o`, `-d`, `-p`), after any flags that take no value, and programs that run commands, pipe,
 * read other files or redirect output (`print > ARGV[1]` redirects to a computed name).
 */
export function awkCheck(args: readonly string[]): string | undefined {
  for (const arg of args) {
    if (
      /^-[bcCghMnNOPrsStV]*[fiElLDW]/.test(arg) ||
      /^--(file|include|load|exec|source|debug)(=|$)/.test(arg)
    )
      return `awk ${arg} loads code from a file`;
    // gawk's -o/-d/-p take an optional attached file; only flags without a value may stand before them.
    if (/^-[bcCghMnNOPrsStV]*[odp]/.test(arg) || /^--(pretty-print|dump-variables|profile)(=|$)/.test(arg))
      return `awk ${arg} writes a file`;
  }
  // SYMTAB (gawk) reaches ARGV, ARGC and ENVIRON by a name computed at run time.
  const risky = /\bsystem\b|\bgetline\b|\|&?|\bENVIRON\b|\bPROCINFO\b|\bSYMTAB\b|@/;
  for (const arg of args) {
    if (arg.startsWith('-')) continue;
    if (risky.test(arg.replaceAll('||', ' ')) || (/\bprintf?\b/.test(arg) && arg.includes('>')))
      return 'the awk program runs commands or touches files';
  }
  return undefined;
}

/** curl's `-w '%output{FILE}'` writes FILE, and `-w @FILE` reads a format that may. */
function curlCheck(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg.includes('%output{')) return 'curl --write-out %output{} writes a file';
    const attached = /^-[A-Za-z0-9]*w(.+)$/.exec(arg)?.[1] ?? /^--wr[a-z-]*=(.*)$/.exec(arg)?.[1];
    const separate = /^-[A-Za-z0-9]*w$|^--wr[a-z-]*$/.test(arg) ? args[index + 1] : undefined;
    if ((attached ?? separate ?? '').startsWith('@'))
      return 'curl --write-out @FILE reads a format that may write files';
  }
  return undefined;
}

/** tar's archive `HOST:FILE` (`-f host:x`, `--file=host:x`, `cf host:x`) is reached through a remote shell. */
function tarCheck(args: readonly string[]): string | undefined {
  // `tar xPf a.tar`: a first word without a dash is a cluster of short options.
  const bundled = /^[A-Za-z0-9]+$/.exec(args[0] ?? '')?.[0] ?? '';
  if (/[IFP]/.test(bundled)) return `tar ${bundled} runs a program or writes outside the working directory`;
  if (args.some((arg) => /^--force-l/.test(arg))) return undefined;
  for (const arg of args) {
    const candidate = arg.replace(/^--file=/, '').replace(/^-[A-Za-z0-9]*f/, '');
    if (!candidate.startsWith('-') && /^[^/]*:/.test(candidate))
      return `tar reaches the archive ${candidate.slice(0, 40)} through a remote shell`;
  }
  return undefined;
}

/**
 * make variables set on the command line that name the program recipes run (`SHELL`), the options
 * or makefiles make reads (`MAKEFLAGS=--eval=…`, `MAKEFILES`), or a program of the implicit rules.
 */
const makeProgramVariable =
  /^(?:SHELL|\.SHELLFLAGS|MAKESHELL|MAKEFLAGS|GNUMAKEFLAGS|MFLAGS|MAKEFILES|MAKE|AR|AS|CC|CXX|CPP|FC|M2C|PC|CO|GET|LEX|YACC|LINT|MAKEINFO|TEX|TEXI2DVI|WEAVE|CWEAVE|TANGLE|CTANGLE|RM|LD)\s*[:+?!]?=/;

function makeCheck(args: readonly string[]): string | undefined {
  const variable = args.find((arg) => makeProgramVariable.test(arg));
  return variable && `make ${variable.split('=')[0]}= names a program recipes run or options make reads`;
}

/** go's single-dash long options that run a program: `-toolexec`, `go test -exec`, `-ldflags=-extld=…`. */
function goCheck(args: readonly string[]): string | undefined {
  for (const [index, arg] of args.entries()) {
    if (/^--?(?:toolexec|exec)(?:=|$)/.test(arg)) return `go ${arg.split('=')[0]} runs a program`;
    const flags = /^--?ldflags(?:=|$)/.test(arg) ? (arg.includes('=') ? arg : (args[index + 1] ?? '')) : '';
    if (/extld/.test(flags)) return 'go -ldflags -extld names the linker program';
  }
  return undefined;
}

/**
 * npm settings given as options whose value is a program npm starts or code it loads: the shell of
 * scripts and `npm exec`/`explore` (`--script-shell`, `--shell`), node's options, the git, editor,
 * browser, node-gyp and python programs, the module `npm init` runs, and configuration files that
 * can set any of them.
 */
const packageManagerOptions = [
  '--script-shell',
  '--node-options',
  '--userconfig',
  '--globalconfig',
  '--shell',
  '--git',
  '--editor',
  '--browser',
  '--init-module',
  '--node-gyp',
  '--python',
];

/** `pnpm --config.script-shell=…`: any setting, so any of the risky ones. */
function pnpmConfigCheck(args: readonly string[]): string | undefined {
  const setting = args.find((arg) => arg.startsWith('--config.'));
  return setting === undefined ? undefined : `pnpm ${setting.split('=')[0]} sets a configuration key`;
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
      '--unsafe-paths',
    ],
    short: ['O'],
    check: gitCheck,
  },
  rg: { long: ['--pre', '--hostname-bin', '--search-zip'], short: ['z'] },
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
      '--absolute-names',
    ],
    short: ['I', 'F', 'P'],
    check: tarCheck,
  },
  ssh: { short: ['o', 'F', 'I'], long: [] },
  scp: { short: ['o', 'F', 'S'] },
  sftp: { short: ['o', 'F', 'S', 'D', 'b'] },
  rsync: { short: ['e'], long: ['--rsh', '--rsync-path'] },
  sed: { check: sedCheck },
  less: { check: lessCheck },
  // On macOS and some other systems `more` is less.
  more: { check: lessCheck },
  man: {
    short: ['P', 'H', 'C', 'X'],
    long: ['--pager', '--html', '--browser', '--config-file', '--gxditview'],
  },
  sort: { short: ['o'], long: ['--output', '--compress-program'] },
  tree: { short: ['o', 'R'], long: ['--output'] },
  curl: { short: ['o', 'K', 'O'], long: ['--output', '--config', '--remote-name'], check: curlCheck },
  wget: {
    short: ['O', 'o', 'i', 'e'],
    long: ['--output-document', '--output-file', '--use-askpass', '--execute', '--config'],
  },
  zip: { short: ['T'], long: ['--unzip-command', '--test'] },
  npm: { long: packageManagerOptions },
  // pnpm also takes any npm setting as `--config.KEY=VALUE`; yarn 1 reads a chosen yarnrc.
  pnpm: { long: packageManagerOptions, check: pnpmConfigCheck },
  yarn: { long: [...packageManagerOptions, '--use-yarnrc'] },
  make: { long: ['--eval'], short: ['E'], check: makeCheck },
  gmake: { long: ['--eval'], short: ['E'], check: makeCheck },
  go: { check: goCheck },
  // `--config KEY=VALUE` or a file may set build.rustc-wrapper, target.*.runner, linker…
  cargo: { long: ['--config'] },
  awk: { check: awkCheck },
  gawk: { check: awkCheck },
  mawk: { check: awkCheck },
  nawk: { check: awkCheck },
};

/** less's command, log and key-file options, and an attached value that runs on into more options. */
function lessCheck(args: readonly string[]): string | undefined {
  const word =
    args.find((arg) => arg.startsWith('+') || /^-[A-Za-z0-9#]*[oOk]|^--(log|lessk)/i.test(arg)) ??
    lessValueOverrun(args);
  return word === undefined
    ? undefined
    : 'less can run commands, read key bindings that set its environment, or write logs';
}

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
  // getopt_long and git accept any unambiguous prefix: `sort --co=cmd` is --compress-program.
  if (name.length < 3) return undefined;
  return options.find((option) => option.startsWith(name));
}

/**
 * A short option anywhere in a cluster: `-4o`, `-vCo` and `-1K` hold `-o` and `-K` (digits are option
 * letters too: `ssh -4`, `curl -0`, `git fetch -6`).
 */
function matchesShort(arg: string, letters: readonly string[]): string | undefined {
  if (!/^-[A-Za-z0-9]/.test(arg) || arg.startsWith('--')) return undefined;
  const cluster = /^-([A-Za-z0-9]+)/.exec(arg)?.[1] ?? '';
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

/**
 * The wrapper that runs the subcommand as another user (`sudo git diff`, `nice doas rm x`), or
 * undefined. Then an allow rule is matched against the words as written, wrapper included, and
 * acceptEdits does not cover it (class `other-user`, docs/decisions/security-other-user.md).
 */
export function otherUserWrapper(subcommand: AnalyzedSubcommandLike): string | undefined {
  const wrappers =
    subcommand.wrappers ??
    subcommand.rawArgv.slice(0, Math.max(0, subcommand.rawArgv.length - subcommand.argv.length));
  return wrappers
    .map((word) => word.slice(word.lastIndexOf('/') + 1))
    .find((name) => userChangingWrappers.has(name));
}
