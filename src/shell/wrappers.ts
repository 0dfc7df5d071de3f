import { own } from './own.ts';
import { formatArgv } from './format-argv.ts';
import type { ArgKind, EnvVar, SimpleCommand } from './types.ts';

/**
 * Wrapper commands that run another command unchanged (`timeout 5 cmd`, `env X=1 cmd`, `sudo cmd`).
 * Each entry lists the wrapper's own options so that option values are never mistaken for the inner
 * command. A wrapper used with an option that is not listed is left as it is: the engine then sees
 * the wrapper itself, which no allow rule for the inner command covers.
 */
interface WrapperSpec {
  /** Short options without a value, as characters. */
  shortFlags: string;
  /** Short options that take a value (attached or as the next word). */
  shortValue: string;
  /** Short options whose value can only be attached (`xargs -i{}`). */
  shortOptionalValue?: string;
  longFlags: readonly string[];
  longValue: readonly string[];
  /** Long options with an optional `=value`. */
  longOptionalValue?: readonly string[];
  /** Options that mean "this is not a wrapper call" (`command -v`, `sudo -l`). */
  notWrapper?: readonly string[];
  /** `NAME=value` words between the options and the command become environment variables. */
  assignments?: boolean;
  /** Positional words before the command, checked by this pattern (`timeout DURATION`). */
  positional?: RegExp;
  /** `nice -5` style numeric options. */
  numericFlag?: boolean;
  /** What runs when the wrapper is given no command (`xargs` → `echo`); absent = not a wrapper then. */
  defaultCommand?: string;
}

const wrapperSpecs: Record<string, WrapperSpec> = {
  timeout: {
    shortFlags: 'v',
    shortValue: 'ks',
    longFlags: ['--foreground', '--preserve-status', '--verbose'],
    longValue: ['--kill-after', '--signal'],
    positional: /^\d+(\.\d+)?[smhd]?$/,
  },
  // GNU time's -o/--output writes a file, so a `time -o` call is not unwrapped.
  time: {
    shortFlags: 'pvqa',
    shortValue: 'f',
    longFlags: ['--portability', '--verbose', '--quiet', '--append'],
    longValue: ['--format'],
  },
  nice: {
    shortFlags: '',
    shortValue: 'n',
    longFlags: [],
    longValue: ['--adjustment'],
    numericFlag: true,
  },
  nohup: { shortFlags: '', shortValue: '', longFlags: [], longValue: [] },
  stdbuf: { shortFlags: '', shortValue: 'ioe', longFlags: [], longValue: ['--input', '--output', '--error'] },
  env: {
    shortFlags: 'i0v',
    shortValue: 'uCaP',
    longFlags: ['--ignore-environment', '--null', '--debug'],
    longValue: ['--unset', '--chdir', '--argv0'],
    longOptionalValue: ['--default-signal', '--ignore-signal', '--block-signal'],
    assignments: true,
  },
  command: { shortFlags: 'p', shortValue: '', longFlags: [], longValue: [], notWrapper: ['-v', '-V'] },
  builtin: { shortFlags: '', shortValue: '', longFlags: [], longValue: [] },
  exec: { shortFlags: 'cl', shortValue: 'a', longFlags: [], longValue: [] },
  noglob: { shortFlags: '', shortValue: '', longFlags: [], longValue: [] },
  setsid: { shortFlags: 'cfw', shortValue: '', longFlags: ['--ctty', '--fork', '--wait'], longValue: [] },
  ionice: {
    shortFlags: 't',
    shortValue: 'cn',
    longFlags: ['--ignore'],
    longValue: ['--class', '--classdata'],
    notWrapper: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'],
  },
  sudo: {
    shortFlags: 'AbEHnPSiskBN',
    shortValue: 'ugCDhprtTUR',
    longFlags: [
      '--askpass',
      '--background',
      '--preserve-env',
      '--set-home',
      '--login',
      '--non-interactive',
      '--preserve-groups',
      '--shell',
      '--stdin',
      '--reset-timestamp',
      '--bell',
      '--no-update',
    ],
    longValue: [
      '--user',
      '--group',
      '--close-from',
      '--chdir',
      '--host',
      '--prompt',
      '--role',
      '--type',
      '--command-timeout',
      '--other-user',
      '--chroot',
    ],
    longOptionalValue: ['--preserve-env'],
    notWrapper: [
      '-e',
      '-l',
      '-v',
      '-K',
      '-V',
      '--edit',
      '--list',
      '--validate',
      '--remove-timestamp',
      '--version',
    ],
    assignments: true,
  },
  doas: { shortFlags: 'nL', shortValue: 'u', longFlags: [], longValue: [], notWrapper: ['-s', '-C'] },
  xargs: {
    shortFlags: '0rtpxo',
    shortValue: 'adEILnPs',
    shortOptionalValue: 'eil',
    longFlags: ['--null', '--no-run-if-empty', '--verbose', '--interactive', '--exit', '--open-tty'],
    longValue: [
      '--arg-file',
      '--delimiter',
      '--max-lines',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--process-slot-var',
    ],
    longOptionalValue: ['--eof', '--replace'],
    notWrapper: ['--show-limits', '--help', '--version'],
    defaultCommand: 'echo',
  },
};

/** Names of the wrappers {@link unwrapCommand} removes. */
export const wrapperNames: readonly string[] = Object.keys(wrapperSpecs);

/** What unwrapping found besides the inner command. */
export interface UnwrapDetails {
  command: SimpleCommand;
  /** Wrappers removed, outermost first (`['nohup', 'timeout']`). */
  wrappers: string[];
  /** Set when `xargs` supplies extra arguments read from stdin; `replace` is its `-I` string. */
  xargs?: { replace?: string };
  /** A directory a wrapper changes to (`env -C dir`, `sudo -D dir`). */
  chdir?: string;
}

interface StripResult {
  inner: number;
  env: EnvVar[];
  replace?: string;
  chdir?: string;
  usedDefault?: string;
}

function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);
}

/** Parses one wrapper's options; returns where the inner command starts, or null to leave it alone. */
function stripWrapper(
  spec: WrapperSpec,
  argv: readonly string[],
  kinds: readonly ArgKind[],
): StripResult | null {
  const result: StripResult = { inner: argv.length, env: [] };
  let index = 1;
  const literalAt = (position: number): boolean => (kinds[position] ?? 'literal') === 'literal';
  const takeValue = (name: string, value: string): boolean => {
    if (name === '-I' || name === '--replace' || name === '-i') result.replace = value || '{}';
    if (name === '-C' || name === '--chdir' || name === '-D') result.chdir = value;
    return true;
  };
  for (; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (!literalAt(index)) return null;
    if (spec.notWrapper?.some((flag) => word === flag || word.startsWith(`${flag}=`))) return null;
    if (word === '--') {
      index++;
      break;
    }
    if (word.startsWith('--')) {
      const [name = '', value] = splitLong(word);
      if (spec.longFlags.includes(name) && value === undefined) continue;
      if (spec.longOptionalValue?.includes(name)) {
        if (name === '--replace') result.replace = value ?? '{}';
        continue;
      }
      if (spec.longValue.includes(name)) {
        if (value !== undefined) takeValue(name, value);
        else {
          index++;
          if (index >= argv.length || !literalAt(index)) return null;
          takeValue(name, argv[index] ?? '');
        }
        continue;
      }
      return null;
    }
    if (word.startsWith('-') && word.length > 1) {
      if (spec.numericFlag && /^-\d+$/.test(word)) continue;
      let consumedNext = false;
      for (let position = 1; position < word.length; position++) {
        const flag = word[position] ?? '';
        if (spec.notWrapper?.includes(`-${flag}`)) return null;
        if (spec.shortOptionalValue?.includes(flag)) {
          if (flag === 'i') result.replace = word.slice(position + 1) || '{}';
          break;
        }
        if (spec.shortValue.includes(flag)) {
          const attached = word.slice(position + 1);
          if (attached) takeValue(`-${flag}`, attached);
          else {
            if (index + 1 >= argv.length || !literalAt(index + 1)) return null;
            takeValue(`-${flag}`, argv[index + 1] ?? '');
            consumedNext = true;
          }
          break;
        }
        if (!spec.shortFlags.includes(flag)) return null;
      }
      if (consumedNext) index++;
      continue;
    }
    break;
  }
  if (spec.positional) {
    const word = argv[index];
    if (word === undefined || !literalAt(index) || !spec.positional.test(word)) return null;
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
    if (!spec.defaultCommand) return null;
    result.usedDefault = spec.defaultCommand;
  }
  result.inner = index;
  return result;
}

function splitLong(word: string): [string, string | undefined] {
  const equals = word.indexOf('=');
  return equals === -1 ? [word, undefined] : [word.slice(0, equals), word.slice(equals + 1)];
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
    const stripped = stripWrapper(spec, argv, kinds);
    if (!stripped) break;
    details.wrappers.push(name);
    envVars = envVars.concat(stripped.env);
    if (name === 'xargs') details.xargs = stripped.replace === undefined ? {} : { replace: stripped.replace };
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
 * the environment the wrappers add (`env A=1 x` → `x` with `A=1`). Unknown wrappers and wrappers
 * used with unknown options are not removed.
 */
export function unwrapCommand(command: SimpleCommand): SimpleCommand {
  return unwrapCommandDetailed(command).command;
}
