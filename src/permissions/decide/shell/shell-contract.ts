/**
 * The part of the shell analyser's output the permission engine relies on, stated structurally so
 * the engine can be driven by the real analyser (`src/shell`) or by a test double.
 */

/** How an environment variable prefix is treated: safe ones may be skipped when matching allow rules. */
export type EnvVarClass = 'safe' | 'dangerous' | 'neutral';

/** One redirection of a subcommand. */
export interface RedirectLike {
  operator: string;
  target: string;
  fd?: number;
}

/** One subcommand as analysed: wrappers unwrapped, cd tracked, writes listed. */
export interface AnalyzedSubcommandLike {
  /** Words after quote removal, wrappers (`timeout`, `nice`, …) removed. */
  argv: readonly string[];
  /** Words as written, wrappers included. */
  rawArgv: readonly string[];
  envVars: ReadonlyArray<{ name: string; value: string }>;
  redirects: readonly RedirectLike[];
  /** The words as one normalised line. */
  text: string;
  /** The source text, wrappers, assignments and redirections included. */
  sourceText?: string;
  /** The directory this subcommand runs in (after earlier `cd`s); null when unknown. */
  cwd: string | null;
  /** Files this subcommand writes (redirect targets, output flags), as written or absolute. */
  writesTo: readonly string[];
  readOnly: boolean;
  origin?: string;
  /** Wrappers removed from the words, outermost first (`['nice', 'sudo']`). */
  wrappers?: readonly string[];
  /** Parallel to argv: whether each word is known before the command runs. */
  argKinds?: ReadonlyArray<'literal' | 'glob' | 'dynamic'>;
  /**
   * What it reads that its words do not name: `names` of files from a list file, stdin or a script
   * (`outside` when they may lie outside the working directories), or git `history` contents.
   */
  indirectReads?: ReadonlyArray<{
    kind: 'names' | 'history';
    what: string;
    outside: boolean;
    below?: string;
  }>;
}

/** What analysing a whole command line gives. */
export type CommandAnalysisLike =
  | { kind: 'too-complex'; reason: string }
  | {
      kind: 'analyzed';
      subcommands: readonly AnalyzedSubcommandLike[];
      tooManySubcommands: boolean;
      tooLong: boolean;
      cdCount?: number;
      cdWithGit?: boolean;
    };

/** The analyser functions the engine calls. */
export interface ShellAnalyzer {
  analyzeCommand(command: string, options: { cwd: string; home?: string }): CommandAnalysisLike;
  classifyEnvVar(name: string): EnvVarClass;
}

/** Placeholders the analyser puts where a value is only known at run time. */
export const runtimeValuePlaceholders: readonly string[] = [
  '__CMDSUB_OUTPUT__',
  '__PROCSUB_PATH__',
  '__TRACKED_VAR__',
];

const placeholderWords: Readonly<Record<string, string>> = {
  __CMDSUB_OUTPUT__: "‹a command's output›",
  __PROCSUB_PATH__: '‹a process substitution›',
  __TRACKED_VAR__: "‹a variable's value›",
};

/** A word for messages: each run-time placeholder in words a person can read. */
export function readableWord(word: string): string {
  return word.replace(
    /__(?:CMDSUB_OUTPUT|PROCSUB_PATH|TRACKED_VAR)__/g,
    (marker) => placeholderWords[marker] ?? marker,
  );
}

/** True when a word's value is not known before the command runs. */
export function isDynamicWord(word: string): boolean {
  return (
    word.includes('$') ||
    word.includes('`') ||
    runtimeValuePlaceholders.some((placeholder) => word.includes(placeholder))
  );
}
