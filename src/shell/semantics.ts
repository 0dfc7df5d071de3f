import type { SyntaxNode } from './syntax-node.ts';
import {
  type CommandOrigin,
  type EnvVar,
  processSubstitutionPlaceholder,
  type SimpleCommand,
} from './types.ts';
import { isHarmlessEnvAssignment } from './env-vars.ts';
import { own } from './own.ts';
import { isReadOnlySimpleCommand } from './read-only/classify.ts';
import { tooComplex } from './walk-errors.ts';
import type { UnwrapDetails } from './wrappers.ts';

/** What a heredoc or here-string feeds to a command's stdin. */
export interface StdinBody {
  text: string;
  /** False when the body contains expansions, so its final text is unknown. */
  literal: boolean;
}

/** zsh builtins that open files, sockets or load modules without any visible program. */
const zshDangerousBuiltins = new Set([
  'zmodload',
  'emulate',
  'sysopen',
  'sysread',
  'syswrite',
  'sysseek',
  'zpty',
  'ztcp',
  'zsocket',
  'mapfile',
  'zselect',
  'zcompile',
  'zformat',
  'zparseopts',
  'zstyle',
]);

/** Builtins that evaluate array subscripts (`a[$(cmd)]`) in their arguments as arithmetic. */
const subscriptEvaluatingBuiltins = new Set([
  'read',
  'printf',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'unset',
  'test',
  '[',
  'mapfile',
  'readarray',
  'getopts',
  'wait',
  'print',
  'vared',
]);

/** Commands whose arguments are always code that runs later or elsewhere and is not analysed. */
const deferredCodeCommands = new Set(['let', 'trap', 'alias', 'bind', 'complete', 'compgen', 'fc', 'enable']);

/** `/proc/<pid>/environ`, `/root`, `/cwd`, `/exe`, `/mem`: secrets or alternate paths around rules. */
const procPaths = /\/proc\/[^/\s]+\/(?:task\/[^/\s]+\/)?(?:environ|root|cwd|exe|mem|map_files)\b/;

const shells = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash']);

const printableName = /^[\x21-\x7e]+$/;

/** The names {@link shellBody} looks further at; for any other it has nothing to say. */
const mayRunCode = new Set([...shells, 'eval', 'busybox', 'fish', 'csh', 'tcsh', 'pwsh', 'nu']);

/** Rejects commands whose meaning cannot be decided from the command line alone. */
export function checkCommandSemantics(raw: SimpleCommand, unwrapped: UnwrapDetails, node: SyntaxNode): void {
  const inner = unwrapped.command;
  checkCommandName(raw, node);
  if (inner !== raw) checkCommandName(inner, node);
  // `IFS=, read a b` only splits what read reads; everywhere else IFS changes how words split.
  for (const variable of raw.envVars) checkAssignment(variable, raw, unwrapped, node);
  for (const variable of inner.envVars) checkAssignment(variable, raw, unwrapped, node);
  checkSplitString(inner, node);
  for (const word of raw.argv) checkProcPath(word, node);
  for (const redirect of raw.redirects) checkProcPath(redirect.target, node);
  for (const variable of raw.envVars) checkProcPath(variable.value, node);
}

/** The checks {@link checkCommandSemantics} makes of one command's name and words. */
function checkCommandName(command: SimpleCommand, node: SyntaxNode): void {
  const name = command.argv[0];
  if (name === undefined) return;
  if ((command.argKinds?.[0] ?? 'literal') !== 'literal') {
    tooComplex(`the command name ${name.slice(0, 40)} is computed at run time`, node.type);
  }
  if (!printableName.test(name))
    tooComplex('the command name contains spaces or non-ASCII characters', node.type);
  if (zshDangerousBuiltins.has(name) || name.startsWith('zf_')) {
    tooComplex(`the zsh builtin ${name} can open files or sockets directly`, node.type);
  }
  if (deferredCodeCommands.has(name) && command.argv.length > 1) {
    tooComplex(`${name} defines code that runs later; it is not analysed`, node.type);
  }
  if (subscriptEvaluatingBuiltins.has(name) && hasSubscript(command.argv)) {
    tooComplex(`${name} evaluates array subscripts, which can run commands`, node.type);
  }
}

/** Whether an argument (a word after the name) has a `[`. */
function hasSubscript(argv: readonly string[]): boolean {
  for (let index = 1; index < argv.length; index++) if (argv[index]?.includes('[')) return true;
  return false;
}

function checkAssignment(
  variable: EnvVar,
  raw: SimpleCommand,
  unwrapped: UnwrapDetails,
  node: SyntaxNode,
): void {
  if (variable.name === 'IFS') {
    const splitsRead =
      unwrapped.wrappers.length === 0 &&
      variable.literal !== false &&
      isHarmlessEnvAssignment(variable.name, variable.value, raw.argv[0]);
    if (!splitsRead) tooComplex('setting IFS changes how words split', node.type);
  }
  if (/^PS[0-4]$|^PROMPT_COMMAND$/.test(variable.name) && raw.argv.length === 0) {
    tooComplex(`${variable.name} runs substitutions when the shell prints it`, node.type);
  }
}

/**
 * `env -S STRING` splits STRING into a command itself and expands `${NAME}` and backslash escapes in
 * it (`env -S '${R} -rf x'`), so what runs is only known when it runs.
 */
function checkSplitString(command: SimpleCommand, node: SyntaxNode): void {
  const [name = '', ...args] = command.argv;
  if (name !== 'env' && !/^\/(?:usr\/)?(?:local\/)?s?bin\/env$/.test(name)) return;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--' || !word.startsWith('-')) return;
    // The value of `-u NAME`, `-C DIR`, `-a NAME`, `-P PATH` is not the command yet.
    if (/^-[A-Za-z0-9]*[uCaP]$|^--(?:un|ch|ar)[a-z0-9-]*$/.test(word)) index++;
    const attached = /^-[A-RT-Za-z0-9]*S(.*)$/s.exec(word)?.[1] ?? /^--sp[a-z-]*=(.*)$/s.exec(word)?.[1];
    const separate = /^-[A-Za-z0-9]*S$|^--sp[a-z-]*$/.test(word) ? args[index + 1] : undefined;
    const value = attached || separate;
    if (value !== undefined && /[$\\]/.test(value))
      tooComplex('env -S expands variables and escapes in the command it runs', node.type);
  }
}

function checkProcPath(word: string, node: SyntaxNode): void {
  if (word.includes('/proc/') && procPaths.test(word))
    tooComplex("the command reaches into /proc for another process's environment or files", node.type);
}

/** A script operand that is the program's own standard input (`sh /dev/stdin`, `bash /dev/fd/0`). */
const stdinDescriptor = /^(?:\/dev\/stdin|\/dev\/fd\/0|\/proc\/[^/]+\/fd\/0)$/;

/** A script operand that is a pipe or descriptor only filled when the command runs. */
function isRuntimeDescriptor(word: string): boolean {
  return word === processSubstitutionPlaceholder || /^(?:\/dev\/fd|\/proc\/[^/]+\/fd)\/\d+$/.test(word);
}

/** Interpreters other than shells that read their program from standard input when given no script. */
const stdinInterpreters =
  /^(?:python[0-9.]*|node|nodejs|perl[0-9.]*|ruby|php[0-9.]*|lua[0-9.]*|luajit|tclsh[0-9.]*|wish|expect|dc|m4|gnuplot|R|Rscript|julia|xonsh|elvish|osh|ysh|oil|ion|rc|es|sash|fish|csh|tcsh|pwsh|nu)$/;

/**
 * Programs that read commands from standard input even when given files to work on, and can run a
 * shell command from them: `ed`/`ex` `!cmd`, vim keystrokes `:!cmd`, sqlite3 `.shell`, gdb `shell`.
 */
const stdinCommandReaders = /^(?:ed|red|ex|vi|vim|nvim|view|sqlite3|gdb)$/;

/**
 * Every name above that reads a program from its input (shells, interpreters, command readers), as a
 * word of another program's command line: `flock L sh`, `unshare -r bash`, `ssh host python3`,
 * `docker exec -i c sh`, `npx sh`, `--shell=/bin/sh`, `alias.x=!sh`.
 */
const inputReaderWord = new RegExp(
  `(?:^|[\\s=!:;|&(/])(?:${[
    ...['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash', 'busybox', 'toybox'],
    'python[0-9.]*',
    'node|nodejs|perl[0-9.]*|ruby|php[0-9.]*|lua[0-9.]*|luajit|tclsh[0-9.]*|wish|expect|dc|m4|gnuplot|R|Rscript|julia',
    'xonsh|elvish|osh|ysh|oil|ion|rc|es|sash|fish|csh|tcsh|pwsh|nu',
    'ed|red|ex|vi|vim|nvim|view|sqlite3|gdb',
  ].join('|')})(?=$|[\\s;|&)])`,
);

/** A system program named by its path (`/bin/sh`, `/usr/bin/python3`): the name it is known by. */
const programPath = /^(?:\/|\.{1,2}\/)(?:[^/]*\/)*([^/]+)$/;

/** How a command is named for the input checks: `/bin/bash` and `./sh` are `bash` and `sh`. */
function programName(written: string): string {
  if (!written.includes('/')) return written;
  return programPath.exec(written)?.[1] ?? written;
}

/** Build tools that run the commands of a build file, and the options naming that file. */
const buildFileOptions: Readonly<Record<string, { short: string; long: readonly string[] }>> = {
  make: { short: 'f', long: ['--file', '--makefile'] },
  gmake: { short: 'f', long: ['--file', '--makefile'] },
  bmake: { short: 'f', long: [] },
  pmake: { short: 'f', long: [] },
  remake: { short: 'f', long: ['--file', '--makefile'] },
  ninja: { short: 'f', long: [] },
  just: { short: 'f', long: ['--justfile'] },
  task: { short: 't', long: ['--taskfile'] },
};

/** The build files a build tool is told to read (`make -f F`, `-fF`, `--file=F`, `--makef F`). */
function buildFiles(name: string, args: readonly string[]): string[] {
  const options = own(buildFileOptions, name);
  if (options === undefined) return [];
  const files: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--') break;
    if (word.startsWith('--')) {
      const equals = word.indexOf('=');
      const option = equals === -1 ? word : word.slice(0, equals);
      // Long options may be abbreviated (`--fil`, `--makef`).
      if (option.length < 4 || !options.long.some((long) => long.startsWith(option))) continue;
      const value = equals === -1 ? args[++index] : word.slice(equals + 1);
      if (value !== undefined) files.push(value);
      continue;
    }
    if (!word.startsWith('-') || word === '-') continue;
    const at = word.indexOf(options.short);
    if (at < 1) continue;
    const attached = word.slice(at + 1);
    const value = attached === '' ? args[++index] : attached;
    if (value !== undefined) files.push(value);
  }
  return files;
}

/** ssh's options that take a value; the first other word is the host, and any after it the command. */
const sshValueLetters = 'BbcDEeFIiJLlmOoPpQRSWw';

/** Whether ssh is given no remote command, so the remote shell reads its commands from the input. */
function sshReadsInput(args: readonly string[]): boolean {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word.startsWith('-') && word.length > 1) {
      const letter = [...word.slice(1)].findIndex((character) => sshValueLetters.includes(character));
      if (letter !== -1 && letter === word.length - 2) index++;
      continue;
    }
    return index === args.length - 1;
  }
  return false;
}

/**
 * Programs that run commands read from their input themselves when given none on the command line:
 * `su`/`sg`/`runuser`, `sudo -s`/`-i` and `script` start a shell, `ssh HOST` a remote one, `parallel` runs each line,
 * `crontab` installs lines that cron runs.
 */
function runsCommandsFromInput(name: string, args: readonly string[]): boolean {
  const commandOption = (word: string) =>
    /^-[A-Za-z]*c|^--(?:c|co|com|comm|comma|comman|command|session-command)(?:=|$)/.test(word);
  switch (name) {
    case 'su':
    case 'runuser':
    case 'script':
      return !args.some(commandOption);
    case 'sg':
      return !args.some(commandOption) && args.filter((word) => !word.startsWith('-')).length <= 1;
    case 'ssh':
      return sshReadsInput(args);
    case 'sudo':
    case 'doas':
      // `sudo -s`, `sudo -i`, `doas -s` with no command start a shell (with a command, it is unwrapped).
      return args.some((word) => /^-[A-Za-z]*[si]|^--(?:shell|login)$/.test(word));
    case 'parallel':
      return args.every((word) => word.startsWith('-'));
    case 'crontab':
      return (
        !args.some((word) => /^-[A-Za-z]*[lre]/.test(word)) &&
        args.every((word) => word === '-' || word.startsWith('-'))
      );
    default:
      return false;
  }
}

/**
 * Input that becomes a program through a command the lists above do not name: a build file read from
 * input or a descriptor (`make -f -`, `make -f <(…)`), a program that runs commands from input itself
 * (`… | su`, `… | ssh host`, `… | parallel`, `… | crontab -`), or a runner the analyser does not
 * remove in front of a shell or interpreter (`… | flock L sh`, `… | unshare -r bash`,
 * `… | docker exec -i c python3`). What runs is only known when the command runs: too complex.
 */
function checkInputRunners(
  name: string,
  inner: SimpleCommand,
  stdin: StdinBody | undefined,
  fed: boolean,
  node: SyntaxNode,
): void {
  const args = inner.argv.slice(1);
  const input = stdin !== undefined || fed;
  for (const file of buildFiles(name, args)) {
    if (isRuntimeDescriptor(file) || ((file === '-' || stdinDescriptor.test(file)) && input))
      tooComplex(`${name} runs a build file only known when the command runs`, node.type);
  }
  if (!input) return;
  if (runsCommandsFromInput(name, args))
    tooComplex(`${name} runs commands read from input only known when the command runs`, node.type);
  if (shells.has(name) || stdinInterpreters.test(name) || stdinCommandReaders.test(name)) return;
  const kinds = inner.argKinds;
  const reader = args.find(
    (word, index) => (kinds?.[index + 1] ?? 'literal') === 'literal' && inputReaderWord.test(word),
  );
  if (reader === undefined) return;
  const argKinds = kinds ?? inner.argv.map(() => 'literal' as const);
  if (isReadOnlySimpleCommand({ argv: inner.argv, argKinds, envVars: [], redirects: [] })) return;
  tooComplex(
    `${name} may run ${reader.slice(0, 40)}, which reads its program from input only known when the command runs`,
    node.type,
  );
}

/**
 * Code a command reads from its input or a descriptor, which another command or a file supplies
 * only when it runs (`echo … | sh`, `bash <(…)`, `source /dev/stdin`, `… | python3`): too complex.
 * `fed` tells whether the command's standard input comes from anywhere but the tool's empty input.
 * Returns the here-string or heredoc body a `source /dev/stdin` runs, when that is literal.
 */
function programFromInput(
  name: string,
  args: readonly string[],
  stdin: StdinBody | undefined,
  fed: boolean,
  node: SyntaxNode,
): { text: string; origin: CommandOrigin } | undefined {
  const runtime = () =>
    tooComplex(`${name} reads its program from input only known when the command runs`, node.type);
  if (name === 'source' || name === '.') {
    const script = args[0] === '--' ? args[1] : args[0];
    if (script === undefined) return undefined;
    if (stdinDescriptor.test(script)) {
      if (stdin?.literal) return { text: stdin.text, origin: 'eval' };
      if (stdin || fed) runtime();
    } else if (isRuntimeDescriptor(script)) runtime();
    return undefined;
  }
  if (stdinCommandReaders.test(name)) {
    if (stdin || fed) runtime();
    return undefined;
  }
  if (!stdinInterpreters.test(name)) return undefined;
  if (args.some((word) => isRuntimeDescriptor(word) || stdinDescriptor.test(word))) runtime();
  const readsInput = args.includes('-') || args.every((word) => word.startsWith('-'));
  if (fed && readsInput) runtime();
  return undefined;
}

/**
 * `at TIME` and `batch` read shell commands from standard input and run them later through `sh`:
 * a literal heredoc or here-string is analysed as code, input only known when the command runs is too
 * complex. `-f FILE` names a script (judged like `sh FILE`); `-l`, `-d`, `-r`, `-c` list or remove jobs.
 */
function scheduledFromInput(
  name: string,
  args: readonly string[],
  stdin: StdinBody | undefined,
  fed: boolean,
  node: SyntaxNode,
): { text: string; origin: CommandOrigin } | undefined {
  if (args.some((word) => /^-[A-Za-z]*[fldrcV]/.test(word) || word === '--help')) return undefined;
  if (stdin?.literal) return { text: stdin.text, origin: 'shell-c' };
  if (stdin || fed)
    tooComplex(`${name} runs commands read from input only known when the command runs`, node.type);
  return undefined;
}

/** Code a command runs from a string: `bash -c BODY`, `eval …`, `sh <<EOF`, `watch CMD`. */
export function shellBody(
  inner: SimpleCommand,
  details: UnwrapDetails,
  stdin: StdinBody | undefined,
  node: SyntaxNode,
  fed = stdin !== undefined,
): { text: string; origin: CommandOrigin } | undefined {
  const written = inner.argv[0];
  if (written === undefined) return undefined;
  const name = programName(written);
  if (fed || stdin !== undefined || own(buildFileOptions, name) !== undefined)
    checkInputRunners(name, inner, stdin, fed, node);
  if (name === 'at' || name === 'batch')
    return scheduledFromInput(name, inner.argv.slice(1), stdin, fed, node);
  // Commands that run no code from a string or their input are done here (most of them).
  if (
    !mayRunCode.has(name) &&
    name !== 'source' &&
    name !== '.' &&
    !stdinInterpreters.test(name) &&
    !stdinCommandReaders.test(name)
  )
    return undefined;
  const args = inner.argv.slice(1);
  const kinds = inner.argKinds?.slice(1) ?? args.map(() => 'literal' as const);
  const replace = details.xargs?.replace;
  const literalArgs = (from: number): string => {
    const parts = args.slice(from);
    if (kinds.slice(from).some((kind) => kind !== 'literal')) {
      tooComplex(`the code given to ${name} is not a fixed string`, node.type);
    }
    const text = parts.join(' ');
    if (replace !== undefined && text.includes(replace)) {
      tooComplex(`xargs substitutes its input into the code given to ${name}`, node.type);
    }
    return text;
  };
  if (name === 'eval') return args.length > 0 ? { text: literalArgs(0), origin: 'eval' } : undefined;
  if (name === 'fish' || name === 'csh' || name === 'tcsh' || name === 'pwsh' || name === 'nu') {
    if (args.some((word) => /^-[a-z]*c/.test(word) || word === '--command')) {
      tooComplex(`${name} code is not analysed`, node.type);
    }
    return programFromInput(name, args, stdin, fed, node);
  }
  if (name === 'busybox' && args[0] !== undefined && shells.has(args[0])) {
    return shellBody({ ...inner, argv: args, argKinds: kinds }, details, stdin, node, fed);
  }
  if (!shells.has(name)) return programFromInput(name, args, stdin, fed, node);
  let commandMode = false;
  let readStdin = false;
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index] ?? '';
    if (kinds[index] !== 'literal') tooComplex(`the options of ${name} are computed at run time`, node.type);
    if (word === '--' || word === '-') {
      if (word === '-') readStdin = true;
      index++;
      break;
    }
    if (word.startsWith('--')) {
      if (word === '--rcfile' || word === '--init-file') index++;
      continue;
    }
    if (/^[-+]/.test(word) && word.length > 1) {
      if (word.includes('c')) commandMode = true;
      if (word.includes('s')) readStdin = true;
      if (/[oO]/.test(word)) index++;
      continue;
    }
    break;
  }
  if (commandMode) {
    if (index >= args.length) tooComplex(`${name} -c has no command string`, node.type);
    if (kinds[index] !== 'literal')
      tooComplex(`the code given to ${name} -c is not a fixed string`, node.type);
    const text = args[index] ?? '';
    if (replace !== undefined && text.includes(replace)) {
      tooComplex(`xargs substitutes its input into the code given to ${name}`, node.type);
    }
    return { text, origin: 'shell-c' };
  }
  const script = readStdin ? undefined : args[index];
  if (script !== undefined && !stdinDescriptor.test(script) && isRuntimeDescriptor(script))
    tooComplex(`${name} runs a script only known when the command runs`, node.type);
  if (script !== undefined && !stdinDescriptor.test(script)) return undefined;
  if (!stdin) {
    if (fed) tooComplex(`${name} reads its program from input only known when the command runs`, node.type);
    return undefined;
  }
  if (!stdin.literal) tooComplex(`the script fed to ${name} contains expansions`, node.type);
  return { text: stdin.text, origin: 'shell-c' };
}
