import { resolveShellPath } from './cwd.ts';
import { formatArgv } from './format-argv.ts';
import { isReadOnlyRedirect, isReadOnlySimpleCommand } from './read-only/classify.ts';
import { type IndirectRead, indirectReadsOf } from './read-only/indirect-reads.ts';
import {
  type ArgKind,
  type CommandOrigin,
  type EnvVar,
  maxCommandLength,
  maxSubcommandsForSecurityCheck,
  type Redirect,
} from './types.ts';
import { type WalkedCommand, type WalkResult, walkCommandLine } from './walker.ts';
import { writeTargetsOf } from './write-targets.ts';

/** One subcommand as the permission engine sees it. */
export interface AnalyzedSubcommand {
  /** The words after wrapper unwrapping (`timeout 5 git status` → `git status`). */
  argv: string[];
  /** The words as written, wrappers included. */
  rawArgv: string[];
  /** Parallel to `argv`. */
  argKinds: ArgKind[];
  /** Prefix assignments plus those added by wrappers (`env A=1`). */
  envVars: EnvVar[];
  redirects: Redirect[];
  /** `argv` as one normalised line: the text Bash rules are matched against. */
  text: string;
  /** The command's source text, wrappers, assignments and redirections included. */
  sourceText: string;
  /** The directory it runs in, tracked across `cd`; null when unknown. */
  cwd: string | null;
  /**
   * Files it writes: output redirections (except /dev/null and fd dups) and obvious targets such as
   * `tee FILE`, resolved against `cwd`. An entry that is not absolute could not be resolved (unknown
   * cwd, `~user`, no home given) and must be treated as outside every working directory.
   */
  writesTo: string[];
  /** Files read through input redirections (`< file`), resolved the same way. */
  readsFrom: string[];
  readOnly: boolean;
  origin: CommandOrigin;
  /** Wrappers removed, outermost first. */
  wrappers: string[];
  /** What it reads that its words do not name (`--files0-from`, `xargs`, awk `ARGV`, git history). */
  indirectReads: IndirectRead[];
}

/** What {@link analyzeCommand} returns. */
export type CommandAnalysis =
  | { kind: 'too-complex'; reason: string }
  | {
      kind: 'analyzed';
      subcommands: AnalyzedSubcommand[];
      /** More than {@link maxSubcommandsForSecurityCheck}: the engine must ask. */
      tooManySubcommands: boolean;
      /** Longer than {@link maxCommandLength}: the engine must ask. */
      tooLong: boolean;
      /** How many `cd`/`pushd`/`popd` commands the line runs (more than one: ask). */
      cdCount: number;
      /** A directory change combined with git, whose hooks then come from another repository: ask. */
      cdWithGit: boolean;
    };

/** Options for {@link analyzeCommand}. */
export interface AnalyzeOptions {
  cwd: string;
  /** For `cd ~` and `~/…` targets; without it those stay unresolved. */
  home?: string;
}

const outputOperators = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

function resolveAll(targets: string[], cwd: string | null, home: string | undefined): string[] {
  const resolved: string[] = [];
  for (const target of targets) resolved.push(resolveShellPath(cwd, target, home) ?? target);
  return resolved;
}

/** The targets of output redirections that write a file (not /dev/null, not a descriptor copy). */
function redirectWriteTargets(redirects: readonly Redirect[]): string[] {
  const targets: string[] = [];
  for (const redirect of redirects)
    if (outputOperators.has(redirect.operator) && !isReadOnlyRedirect(redirect))
      targets.push(redirect.target);
  return targets;
}

/** The targets of `<` and `<>` redirections. */
function redirectReadTargets(redirects: readonly Redirect[]): string[] {
  const targets: string[] = [];
  for (const redirect of redirects)
    if (redirect.operator === '<' || redirect.operator === '<>') targets.push(redirect.target);
  return targets;
}

function analyzeOne(command: WalkedCommand, options: AnalyzeOptions): AnalyzedSubcommand {
  const inner = command.unwrapped.command;
  const innerKinds = inner.argKinds ?? inner.argv.map(() => 'literal' as const);
  const viaXargs = command.unwrapped.xargs !== undefined;
  const redirectWrites = redirectWriteTargets(command.redirects);
  // `xargs -a FILE` reads FILE as `xargs < FILE` would: the engine checks it like an input redirect.
  const argFile = command.unwrapped.xargs?.argFile;
  const redirects =
    argFile === undefined ? command.redirects : [...command.redirects, { operator: '<', target: argFile }];
  const reads = redirectReadTargets(redirects);
  const writes = redirectWrites.concat(writeTargetsOf(inner.argv, innerKinds));
  const readOnly = isReadOnlySimpleCommand({
    argv: inner.argv,
    argKinds: innerKinds,
    envVars: inner.envVars,
    redirects: command.redirects,
    wrappers: command.unwrapped.wrappers,
    viaXargs,
  });
  return {
    argv: inner.argv,
    rawArgv: command.argv,
    argKinds: innerKinds,
    envVars: inner.envVars,
    redirects,
    text: formatArgv(inner.argv),
    sourceText: command.text,
    cwd: command.cwd,
    writesTo: resolveAll(writes, command.cwd, options.home),
    readsFrom: resolveAll(reads, command.cwd, options.home),
    readOnly,
    origin: viaXargs ? 'xargs' : command.origin,
    wrappers: command.unwrapped.wrappers,
    indirectReads: indirectReadsOf(
      inner.argv,
      command.unwrapped.xargs && xargsInput(command, options.home),
      inner.envVars.map((variable) => variable.name),
    ),
  };
}

/** xargs' details plus, when a path lister feeds it, the absolute directory whose paths it lists. */
function xargsInput(command: WalkedCommand, home: string | undefined) {
  const xargs = { ...command.unwrapped.xargs };
  const stdin = command.stdin;
  if (stdin?.kind !== 'listed' || stdin.cwd === null) return xargs;
  const below = resolveShellPath(stdin.cwd, stdin.directory, home);
  return below === null ? xargs : { ...xargs, listedBelow: below };
}

/**
 * The one entry point the permission engine uses: splits a command line into subcommands, unwraps
 * wrappers, tracks `cd`, resolves write targets and classifies each subcommand as read-only or not.
 * Synchronous; call {@link loadShellParser} first (before that, and for anything not fully
 * understood, the result is `too-complex`).
 */
export function analyzeCommand(command: string, options: AnalyzeOptions): CommandAnalysis {
  return analyzeWalk(command, walkCommandLine(command, walkOptionsOf(options)), options);
}

/** The walker's options for an analysis. */
export function walkOptionsOf(options: AnalyzeOptions): { cwd: string; home?: string } {
  return options.home === undefined ? { cwd: options.cwd } : { cwd: options.cwd, home: options.home };
}

/** {@link analyzeCommand} from a walk already made with {@link walkOptionsOf}`(options)`. */
export function analyzeWalk(command: string, result: WalkResult, options: AnalyzeOptions): CommandAnalysis {
  if (result.kind === 'parse-unavailable')
    return { kind: 'too-complex', reason: 'the shell parser is not loaded' };
  if (result.kind === 'too-complex') return { kind: 'too-complex', reason: result.reason };
  const subcommands = result.commands.map((walked) => analyzeOne(walked, options));
  const runsGit = subcommands.some((subcommand) => subcommand.argv[0] === 'git');
  return {
    kind: 'analyzed',
    subcommands,
    tooManySubcommands: subcommands.length > maxSubcommandsForSecurityCheck,
    tooLong: command.length > maxCommandLength,
    cdCount: result.cdCount,
    cdWithGit: result.cdCount > 0 && runsGit,
  };
}
