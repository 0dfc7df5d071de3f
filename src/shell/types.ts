/**
 * The data the shell analyser produces. Everything here is plain data so the permission engine,
 * the Bash tool and `efferent check` can show it, compare it and match rules against it.
 */

/** Stands in for the output of `$(…)` or a backtick substitution inside an argument. */
export const commandSubstitutionPlaceholder = '__CMDSUB_OUTPUT__';
/** Stands in for the `/dev/fd/N` path a `<(…)` or `>(…)` process substitution expands to. */
export const processSubstitutionPlaceholder = '__PROCSUB_PATH__';
/** Stands in for a variable assigned earlier in the same command line. */
export const trackedVariablePlaceholder = '__TRACKED_VAR__';

/** Above this many subcommands the engine must ask instead of checking each one. */
export const maxSubcommandsForSecurityCheck = 50;
/** Commands longer than this always ask (they are still analysed so deny rules can match). */
export const maxCommandLength = 10_000;

/**
 * How much of an argument is known before the command runs:
 * `literal` is its exact final text; `glob` is static text with unquoted `*`, `?` or `[` (pathname
 * expansion may turn it into any file name, including one that looks like a flag); `dynamic` contains
 * a variable or a command substitution whose value is unknown.
 */
export type ArgKind = 'literal' | 'glob' | 'dynamic';

/** An environment assignment in front of a command (`LANG=C sort`), or made by a wrapper (`env X=1`). */
export interface EnvVar {
  name: string;
  value: string;
  /** False when the value contains a variable or substitution. */
  literal?: boolean;
}

/** One redirection: `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `>&`, `<&`, `<<`, `<<-`, `<<<`. */
export interface Redirect {
  operator: string;
  /** The file (quotes resolved), the fd for dups (`2>&1` → `1`), or `<heredoc>` / `<herestring>`. */
  target: string;
  /** The explicit file descriptor, as in `2>`. */
  fd?: number;
}

/** Where a command was found. */
export type CommandOrigin = 'top' | 'substitution' | 'shell-c' | 'eval' | 'xargs';

/** One simple command of a compound command line. */
export interface SimpleCommand {
  /** The words after quote removal; substitutions replaced by placeholders, unknown variables kept as `$NAME`. */
  argv: string[];
  /** Assignments in front of the command name. */
  envVars: EnvVar[];
  redirects: Redirect[];
  /** The command's own source text. */
  text: string;
  /** Parallel to `argv`; absent means "treat any `$` or placeholder as dynamic". */
  argKinds?: ArgKind[];
  /** Absent means `top`. */
  origin?: CommandOrigin;
}

/** What {@link parseForSecurity} returns. */
export type ShellParseResult =
  | { kind: 'simple'; commands: SimpleCommand[] }
  | { kind: 'too-complex'; reason: string; nodeType?: string }
  | { kind: 'parse-unavailable' };
