import type { PreparedShellAnalysis } from '../core/index.ts';
import {
  type AnalyzeOptions,
  analyzeCommand,
  analyzeWalk,
  type CommandAnalysis,
  walkOptionsOf,
} from './analyze.ts';
import { isReadOnlyAnalysis } from './is-read-only-command.ts';
import { parseResultOfWalk } from './parse-for-security.ts';
import { maxCommandLength, type ShellParseResult } from './types.ts';
import { type WalkResult, walkCommandLine } from './walker.ts';

/**
 * One command line analysed once for one call (one parse, one walk), shared by every step that asks
 * about it: the Bash tool's read-only, concurrency and sed questions, the permission decision, hook
 * `if` conditions and the run. Where the walk starts (cwd, home) changes only the directories it
 * tracks and the paths it resolves, never which commands it finds or whether they are read-only; so
 * those questions take whichever walk exists, and each (cwd, home) the engine asks about gets its own
 * analysis, made at most once.
 */
export interface PreparedShellCommand extends PreparedShellAnalysis {
  /** The analysis as seen from `cwd` with `home`; made on first request, then remembered. */
  analysisFor(cwd: string, home: string | undefined): CommandAnalysis;
  /** {@link parseForSecurity}'s result for the line. */
  parse(): ShellParseResult;
  /** {@link isReadOnlyCommand}'s answer for the line. */
  isReadOnly(): boolean;
}

interface Walked {
  walk: WalkResult;
  analysis: CommandAnalysis;
}

const made = new WeakSet<object>();

const keyOf = (cwd: string, home: string | undefined) =>
  home === undefined ? `${cwd}\0` : `${cwd}\0\0${home}`;

/**
 * Prepares `command` for one call. Nothing is parsed until a question is asked; the first question
 * that needs a walk makes it from `start` unless an analysis already exists. A walk made before the
 * grammar loaded is not remembered, so a later question gets the real answer.
 */
export function prepareShellCommand(command: string, start: AnalyzeOptions): PreparedShellCommand {
  const prepared = new PreparedCommand(command, start);
  made.add(prepared);
  return prepared;
}

/** One command line's walks, one per directory and home it is looked at from, made on first use. */
class PreparedCommand implements PreparedShellCommand {
  private readonly walks = new Map<string, Walked>();
  private any: Walked | undefined;

  constructor(
    readonly command: string,
    private readonly start: AnalyzeOptions,
  ) {}

  analysisFor(cwd: string, home: string | undefined): CommandAnalysis {
    return this.walkFrom(home === undefined ? { cwd } : { cwd, home }).analysis;
  }

  parse(): ShellParseResult {
    return parseResultOfWalk(this.structure().walk);
  }

  isReadOnly(): boolean {
    return this.command.length <= maxCommandLength && isReadOnlyAnalysis(this.structure().analysis);
  }

  private structure(): Walked {
    return this.any ?? this.walkFrom(this.start);
  }

  private walkFrom(options: AnalyzeOptions): Walked {
    const key = keyOf(options.cwd, options.home);
    const known = this.walks.get(key);
    if (known) return known;
    const walk = walkCommandLine(this.command, walkOptionsOf(options));
    const walked = { walk, analysis: analyzeWalk(this.command, walk, options) };
    if (walk.kind !== 'parse-unavailable') {
      this.walks.set(key, walked);
      this.any ??= walked;
    }
    return walked;
  }
}

/**
 * The analysis a permission check or hook condition may take from a prepared call instead of
 * analysing again: only one {@link prepareShellCommand} made, only for the same command, and only
 * when the caller's analyser is this one (`analyze` is the function it would call). Otherwise
 * undefined, and the caller analyses as before.
 */
export function adoptPreparedAnalysis(
  prepared: PreparedShellAnalysis | undefined,
  analyze: (command: string, options: { cwd: string; home?: string }) => unknown,
  command: string,
  options: { cwd: string; home?: string },
): CommandAnalysis | undefined {
  if (prepared === undefined || !made.has(prepared) || analyze !== analyzeCommand) return undefined;
  if (prepared.command !== command) return undefined;
  return (prepared as PreparedShellCommand).analysisFor(options.cwd, options.home);
}

/** Whether `value` was made by {@link prepareShellCommand} (for callers holding an opaque analysis). */
export function isPreparedShellCommand(
  value: PreparedShellAnalysis | undefined,
): value is PreparedShellCommand {
  return value !== undefined && made.has(value);
}
