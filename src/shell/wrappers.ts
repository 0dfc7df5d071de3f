import { own } from './own.ts';
import { formatArgv } from './format-argv.ts';
import type { ArgKind, EnvVar, SimpleCommand } from './types.ts';

/**
 * Wrapper commands that run another command (`timeout 5 cmd`, `env X=1 cmd`, `xargs cmd`). Every
 * option of every wrapper is listed with what it does to the inner command (its EFFECT), so that a
 * wrapper is only removed when everything it changes is carried onto the inner command:
 *
 * - `none`: nothing the permission engine judges (time limits, priorities, verbosity);
 * - `chdir`: the inner command runs in the directory the value names (`env -C`, `sudo -D`);
 * - `set-env` / `unset-env`: the value names an environment variable the inner command gets or loses
 *   (`xargs --process-slot-var=PATH`, `env -u NAME`); it goes through the same class checks as
 *   `NAME=x cmd`;
 * - `clear-env`: every variable is removed, PATH included (`env -i`, `exec -c`);
 * - `search-path`: the value is the PATH the program is looked up in (BSD `env -P`);
 * - `arg-file`: the inner command's arguments are read from the file the value names (`xargs -a`);
 * - `replace`: xargs substitutes input into the inner command's words;
 * - `opaque`: the wrapper runs a program of its own, writes a file or changes the root
 *   (`sudo -A`, `env -S`, `time -o`, `sudo -R`): it is not removed, so the engine judges the wrapper,
 *   which is not read-only and which no allow rule for the inner command covers;
 * - `not-wrapper`: the call does something else (`command -v`, `sudo -l`, `--help`).
 *
 * An option that is not listed, a long option that abbreviates none or several, or an option word
 * only known at run time makes the call too complex: the engine cannot tell what the wrapper does.
 */
export type WrapperEffect =
  | 'none'
  | 'chdir'
  | 'set-env'
  | 'unset-env'
  | 'clear-env'
  | 'search-path'
  | 'arg-file'
  | 'replace'
  | 'opaque'
  | 'not-wrapper';

/** One option: whether it takes a value (`optional` = only attached or after `=`) and its effect. */
export interface WrapperOption {
  arity: 'none' | 'value' | 'optional';
  effect: WrapperEffect;
}

/** How one wrapper is called. */
export interface WrapperSpec {
  /** Every option (`-k`, `--kill-after`); an option not here makes the call too complex. */
  options: Readonly<Record<string, WrapperOption>>;
  /** `NAME=value` words between the options and the command become environment variables. */
  assignments?: boolean;
  /** Positional words before the command, checked by this pattern (`timeout DURATION`). */
  positional?: RegExp;
  /** `nice -5` style numeric options. */
  numericFlag?: boolean;
  /** What runs when the wrapper is given no command (`xargs` → `echo`); absent = not a wrapper then. */
  defaultCommand?: string;
}

/** Builds an option table: `['-k', '--kill-after']` share one entry. */
function options(
  ...entries: ReadonlyArray<
    readonly [names: readonly string[], arity: WrapperOption['arity'], effect: WrapperEffect]
  >
): Record<string, WrapperOption> {
  const table: Record<string, WrapperOption> = {};
  for (const [names, arity, effect] of entries) for (const name of names) table[name] = { arity, effect };
  return table;
}

/** `--help` and `--version` print and exit: the call runs nothing. */
const informational = [['--help', '--version'], 'none', 'not-wrapper'] as const;

const wrapperSpecs: Record<string, WrapperSpec> = {
  timeout: {
    options: options(
      [['-k', '--kill-after'], 'value', 'none'],
      [['-s', '--signal'], 'value', 'none'],
      [['-v', '--verbose'], 'none', 'none'],
      [['-f', '--foreground'], 'none', 'none'],
      [['-p', '--preserve-status'], 'none', 'none'],
      informational,
    ),
    positional: /^\d+(\.\d+)?[smhd]?$/,
  },
  // GNU time; `-o FILE` writes the timing report to a file.
  time: {
    options: options(
      [['-p', '--portability'], 'none', 'none'],
      [['-v', '--verbose'], 'none', 'none'],
      [['-q', '--quiet'], 'none', 'none'],
      [['-a', '--append'], 'none', 'none'],
      [['-f', '--format'], 'value', 'none'],
      [['-o', '--output'], 'value', 'opaque'],
      [['-V'], 'none', 'not-wrapper'],
      informational,
    ),
  },
  nice: {
    options: options([['-n', '--adjustment'], 'value', 'none'], informational),
    numericFlag: true,
  },
  nohup: { options: options(informational) },
  // stdbuf preloads the system's libstdbuf; the modes only change buffering.
  stdbuf: {
    options: options(
      [['-i', '--input'], 'value', 'none'],
      [['-o', '--output'], 'value', 'none'],
      [['-e', '--error'], 'value', 'none'],
      informational,
    ),
  },
  env: {
    options: options(
      [['-i', '--ignore-environment', '-'], 'none', 'clear-env'],
      [['-0', '--null'], 'none', 'not-wrapper'],
      [['-u', '--unset'], 'value', 'unset-env'],
      [['-C', '--chdir'], 'value', 'chdir'],
      [['-S', '--split-string'], 'value', 'opaque'],
      [['-v', '--debug'], 'none', 'none'],
      [['-a', '--argv0'], 'value', 'none'],
      [['-P'], 'value', 'search-path'],
      [['-L', '-U'], 'value', 'opaque'],
      [['--default-signal', '--ignore-signal', '--block-signal'], 'optional', 'none'],
      [['--list-signal-handling'], 'none', 'none'],
      informational,
    ),
    assignments: true,
  },
  command: {
    options: options([['-p'], 'none', 'none'], [['-v', '-V'], 'none', 'not-wrapper']),
  },
  builtin: { options: {} },
  exec: {
    options: options([['-c'], 'none', 'clear-env'], [['-l'], 'none', 'none'], [['-a'], 'value', 'none']),
  },
  noglob: { options: {} },
  setsid: {
    options: options(
      [['-c', '--ctty'], 'none', 'none'],
      [['-f', '--fork'], 'none', 'none'],
      [['-w', '--wait'], 'none', 'none'],
      informational,
    ),
  },
  ionice: {
    options: options(
      [['-c', '--class'], 'value', 'none'],
      [['-n', '--classdata'], 'value', 'none'],
      [['-t', '--ignore'], 'none', 'none'],
      [['-p', '-P', '-u', '--pid', '--pgid', '--uid'], 'value', 'not-wrapper'],
      informational,
    ),
  },
  // util-linux chrt: `chrt [options] PRIORITY command`.
  chrt: {
    options: options(
      [
        ['-b', '--batch', '-d', '--deadline', '-f', '--fifo', '-i', '--idle', '-o', '--other'],
        'none',
        'none',
      ],
      [['-r', '--rr', '-R', '--reset-on-fork', '-a', '--all-tasks', '-v', '--verbose'], 'none', 'none'],
      [['-T', '--sched-runtime', '-P', '--sched-period', '-D', '--sched-deadline'], 'value', 'none'],
      [['-p', '--pid', '-m', '--max'], 'none', 'not-wrapper'],
      informational,
    ),
    positional: /^\d+$/,
  },
  // util-linux taskset: `taskset [-c] MASK|LIST command`.
  taskset: {
    options: options(
      [['-a', '--all-tasks', '-c', '--cpu-list'], 'none', 'none'],
      [['-p', '--pid'], 'none', 'not-wrapper'],
      informational,
    ),
    positional: /^(?:0x)?[0-9a-fA-F]+$|^[0-9][0-9,:-]*$/,
  },
  sudo: {
    options: options(
      [['-A', '--askpass'], 'none', 'opaque'],
      [['-b', '--background', '-n', '--non-interactive', '-S', '--stdin'], 'none', 'none'],
      [['-E'], 'none', 'none'],
      [['--preserve-env'], 'optional', 'none'],
      [['-H', '--set-home', '-P', '--preserve-groups', '-k', '--reset-timestamp'], 'none', 'none'],
      [['-B', '--bell', '-N', '--no-update'], 'none', 'none'],
      // A login shell or `-s` runs the command through a shell as text.
      [['-i', '--login', '-s', '--shell'], 'none', 'opaque'],
      [['-u', '--user', '-g', '--group', '-C', '--close-from', '-h', '--host'], 'value', 'none'],
      [['-p', '--prompt', '-r', '--role', '-t', '--type', '-T', '--command-timeout'], 'value', 'none'],
      [['-U', '--other-user'], 'value', 'none'],
      [['-D', '--chdir'], 'value', 'chdir'],
      [['-R', '--chroot'], 'value', 'opaque'],
      [
        ['-e', '--edit', '-l', '--list', '-v', '--validate', '-K', '--remove-timestamp', '-V'],
        'none',
        'not-wrapper',
      ],
      informational,
    ),
    assignments: true,
  },
  doas: {
    options: options(
      [['-n'], 'none', 'none'],
      [['-u'], 'value', 'none'],
      [['-L', '-s'], 'none', 'not-wrapper'],
      [['-C'], 'value', 'not-wrapper'],
    ),
  },
  xargs: {
    options: options(
      [['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose'], 'none', 'none'],
      [['-p', '--interactive', '-x', '--exit', '-o', '--open-tty'], 'none', 'none'],
      [['-a', '--arg-file'], 'value', 'arg-file'],
      [['-d', '--delimiter', '-E', '-L', '-n', '--max-args', '-P', '--max-procs'], 'value', 'none'],
      [['-s', '--max-chars'], 'value', 'none'],
      [['-e', '--eof', '-l', '--max-lines'], 'optional', 'none'],
      [['-I'], 'value', 'replace'],
      [['-i', '--replace'], 'optional', 'replace'],
      [['--process-slot-var'], 'value', 'set-env'],
      [['--show-limits'], 'none', 'not-wrapper'],
      informational,
    ),
    defaultCommand: 'echo',
  },
};

/** Names of the wrappers {@link unwrapCommand} removes. */
export const wrapperNames: readonly string[] = Object.keys(wrapperSpecs);

/**
 * Wrappers that run the inner command as another user, with that user's rights, home and
 * environment (`sudo`, `doas`). What an allow rule or a mode grants the command as the user it does
 * not grant it as root; only a rule that names the wrapper (`Bash(sudo apt update)`) does.
 */
export const userChangingWrappers: ReadonlySet<string> = new Set(['sudo', 'doas']);

/** The option table of a wrapper (for tests and explanations). */
export function wrapperSpec(name: string): WrapperSpec | undefined {
  return own(wrapperSpecs, name);
}

/** What unwrapping found besides the inner command. */
export interface UnwrapDetails {
  command: SimpleCommand;
  /** Wrappers removed, outermost first (`['nohup', 'timeout']`). */
  wrappers: string[];
  /**
   * Set when `xargs` supplies extra arguments: `replace` is its `-I` string, `argFile` the file it
   * reads them from (`-a FILE`; absent = stdin).
   */
  xargs?: { replace?: string; argFile?: string };
  /** A directory a wrapper changes to (`env -C dir`, `sudo -D dir`). */
  chdir?: string;
  /** Why the wrappers cannot be judged (an unknown or computed option): the engine must ask. */
  tooComplex?: string;
}

type StripOutcome =
  | {
      kind: 'unwrapped';
      inner: number;
      env: EnvVar[];
      replace?: string;
      argFile?: string;
      chdir?: string;
      usedDefault?: string;
    }
  | { kind: 'leave' }
  | { kind: 'too-complex'; reason: string };

function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);
}

/**
 * The option a long option word names: exact, or the one option it abbreviates (getopt_long accepts
 * any unambiguous prefix, so `xargs --arg=list` is `--arg-file=list`). Undefined when it names none
 * or several.
 */
function resolveLong(spec: WrapperSpec, name: string): string | undefined {
  if (own(spec.options, name)) return name;
  const matches = Object.keys(spec.options).filter(
    (option) => option.startsWith('--') && option.startsWith(name),
  );
  return matches.length === 1 ? matches[0] : undefined;
}

/** Parses one wrapper's options and applies their effects. */
function stripWrapper(
  wrapper: string,
  spec: WrapperSpec,
  argv: readonly string[],
  kinds: readonly ArgKind[],
): StripOutcome {
  const result: Extract<StripOutcome, { kind: 'unwrapped' }> = {
    kind: 'unwrapped',
    inner: argv.length,
    env: [],
  };
  const literalAt = (position: number): boolean => (kinds[position] ?? 'literal') === 'literal';
  const unknown = (word: string): StripOutcome => ({
    kind: 'too-complex',
    reason: `${wrapper} option ${word.slice(0, 40)} is not known, so what ${wrapper} runs cannot be checked; run the command without it`,
  });
  /** Applies one option; returns an outcome to stop with, or undefined to go on. */
  const apply = (option: WrapperOption, value: string): StripOutcome | undefined => {
    switch (option.effect) {
      case 'none':
        return undefined;
      case 'opaque':
      case 'not-wrapper':
        return { kind: 'leave' };
      case 'chdir':
        result.chdir = value;
        return undefined;
      case 'set-env':
      case 'unset-env':
        result.env.push({ name: value, value: '', literal: true });
        return undefined;
      case 'clear-env':
        // Clearing the environment unsets PATH too: the program is then looked up elsewhere.
        result.env.push({ name: 'PATH', value: '', literal: true });
        return undefined;
      case 'search-path':
        result.env.push({ name: 'PATH', value, literal: true });
        return undefined;
      case 'arg-file':
        result.argFile = value;
        return undefined;
      case 'replace':
        result.replace = value || '{}';
        return undefined;
    }
  };
  let index = 1;
  for (; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (!literalAt(index))
      return {
        kind: 'too-complex',
        reason: `a word after ${wrapper} is only known when the command runs, so what ${wrapper} does cannot be checked`,
      };
    if (word === '--') {
      index++;
      break;
    }
    const bare = word === '-' ? own(spec.options, '-') : undefined;
    if (bare) {
      const stop = apply(bare, '');
      if (stop) return stop;
      continue;
    }
    // `nice --10 cmd` is the legacy spelling of an adjustment of -10.
    if (spec.numericFlag && /^--?\d+$/.test(word)) continue;
    if (word.startsWith('--')) {
      const equals = word.indexOf('=');
      const written = equals === -1 ? word : word.slice(0, equals);
      const name = resolveLong(spec, written);
      const option = name === undefined ? undefined : own(spec.options, name);
      if (!option) return unknown(written);
      let value = equals === -1 ? undefined : word.slice(equals + 1);
      if (option.arity === 'none' && value !== undefined) return unknown(word);
      if (option.arity === 'value' && value === undefined) {
        index++;
        if (index >= argv.length) return { kind: 'leave' };
        if (!literalAt(index)) return unknown(`${written} with a computed value`);
        value = argv[index] ?? '';
      }
      const stop = apply(option, value ?? '');
      if (stop) return stop;
      continue;
    }
    if (word.startsWith('-') && word.length > 1) {
      let consumedNext = false;
      for (let position = 1; position < word.length; position++) {
        const flag = `-${word[position] ?? ''}`;
        const option = own(spec.options, flag);
        if (!option) return unknown(flag);
        if (option.arity === 'none') {
          const stop = apply(option, '');
          if (stop) return stop;
          continue;
        }
        let value = word.slice(position + 1);
        if (value === '' && option.arity === 'value') {
          if (index + 1 >= argv.length) return { kind: 'leave' };
          if (!literalAt(index + 1)) return unknown(`${flag} with a computed value`);
          value = argv[index + 1] ?? '';
          consumedNext = true;
        }
        const stop = apply(option, value);
        if (stop) return stop;
        break;
      }
      if (consumedNext) index++;
      continue;
    }
    break;
  }
  if (spec.positional) {
    const word = argv[index];
    if (word === undefined) return { kind: 'leave' };
    if (!literalAt(index))
      return { kind: 'too-complex', reason: `the ${wrapper} argument ${word.slice(0, 40)} is computed` };
    if (!spec.positional.test(word)) return { kind: 'leave' };
    index++;
  }
  if (spec.assignments) {
    while (index < argv.length && isAssignment(argv[index] ?? '')) {
      const word = argv[index] ?? '';
      const equals = word.indexOf('=');
      result.env.push({
        name: word.slice(0, equals),
        value: word.slice(equals + 1),
        literal: literalAt(index),
      });
      index++;
    }
  }
  if (index >= argv.length) {
    if (!spec.defaultCommand) return { kind: 'leave' };
    result.usedDefault = spec.defaultCommand;
  }
  result.inner = index;
  return result;
}

/**
 * A wrapper named by its path in a system directory (`/usr/bin/env`) is the wrapper itself; any other
 * path (`./env`) may be a different program and is left as written.
 */
function systemProgramName(word: string): string {
  const match = /^\/(?:usr\/)?(?:local\/)?s?bin\/([^/]+)$/.exec(word);
  return match?.[1] ?? word;
}

/** Removes every known wrapper around a command and reports what was removed. */
export function unwrapCommandDetailed(command: SimpleCommand): UnwrapDetails {
  // Most commands have no wrapper: answer those without copying their words.
  const first = command.argv[0];
  if (
    first === undefined ||
    (command.argKinds?.[0] ?? 'literal') !== 'literal' ||
    !own(wrapperSpecs, systemProgramName(first))
  )
    return { command, wrappers: [] };
  let argv = command.argv.slice();
  let kinds: ArgKind[] = command.argKinds?.slice() ?? argv.map(() => 'literal');
  let envVars = command.envVars.slice();
  const details: UnwrapDetails = { command, wrappers: [] };
  for (let layer = 0; layer < 32; layer++) {
    const written = argv[0];
    if (written === undefined || (kinds[0] ?? 'literal') !== 'literal') break;
    const name = systemProgramName(written);
    const spec = own(wrapperSpecs, name);
    if (!spec) break;
    const stripped = stripWrapper(name, spec, argv, kinds);
    if (stripped.kind === 'too-complex') {
      details.tooComplex = stripped.reason;
      break;
    }
    if (stripped.kind === 'leave') break;
    // `xargs xargs`: the outer one's input becomes the inner one's command, which nothing wrote.
    if (stripped.usedDefault && details.xargs !== undefined && details.xargs.replace === undefined) {
      details.tooComplex = `xargs gives its input to ${name} as the command to run, so what runs is only known when it runs`;
      break;
    }
    details.wrappers.push(name);
    envVars = envVars.concat(stripped.env);
    if (name === 'xargs') {
      details.xargs = {};
      if (stripped.replace !== undefined) details.xargs.replace = stripped.replace;
      if (stripped.argFile !== undefined) details.xargs.argFile = stripped.argFile;
    }
    if (stripped.chdir !== undefined) details.chdir = stripped.chdir;
    if (stripped.usedDefault) {
      argv = [stripped.usedDefault];
      kinds = ['literal'];
    } else {
      argv = argv.slice(stripped.inner);
      kinds = kinds.slice(stripped.inner);
    }
    // `nohup FOO=bar timeout 5 cmd`: assignments after a wrapper are read as environment, which can only
    // make deny rules match more often.
    while (argv.length > 1 && isAssignment(argv[0] ?? '') && kinds[0] === 'literal') {
      const word = argv[0] ?? '';
      const equals = word.indexOf('=');
      envVars.push({ name: word.slice(0, equals), value: word.slice(equals + 1), literal: true });
      argv = argv.slice(1);
      kinds = kinds.slice(1);
    }
  }
  if (details.wrappers.length === 0) return details;
  const inner: SimpleCommand = {
    argv,
    envVars,
    redirects: command.redirects,
    text: formatArgv(argv),
    argKinds: kinds,
  };
  if (command.origin !== undefined) inner.origin = command.origin;
  details.command = inner;
  return details;
}

/**
 * The command inside any known wrappers (`timeout 5 nice -n 2 git status` → `git status`), with
 * the environment the wrappers add (`env A=1 x` → `x` with `A=1`). Wrappers used with options that
 * change what runs are not removed.
 */
export function unwrapCommand(command: SimpleCommand): SimpleCommand {
  return unwrapCommandDetailed(command).command;
}
