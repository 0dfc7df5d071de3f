import {
  checkSubcommand,
  type IndexedCheckContext,
  indexCheckContext,
  type SubcommandCheckContext,
  suggestRule,
} from './check-subcommand.ts';
import type { AnalyzedSubcommandLike, CommandAnalysisLike, ShellAnalyzer } from './shell-contract.ts';
import { ask } from './subcommand-checks.ts';
import { pythonPathBeforeAllow } from './python-import-path.ts';
import { makeDryRunBeforeAllow } from './make-dry-run.ts';
import { cargoConfigurationBeforeAllow } from './cargo-configuration.ts';
import { protectedDirectoryEntered, protectedPathInText } from './protected-names.ts';
import { recordsOnly } from './subcommand-steps.ts';
import { subcommandLabel } from './command-text.ts';
import { errorMessage, type PreparedShellAnalysis } from '../../../core/index.ts';
import { adoptPreparedAnalysis } from '../../../shell/index.ts';
import { type GitInspection, inspectGitInvocation } from '../../git-config/inspect-git.ts';
import { isUnresolvable } from '../../paths/canonical-path.ts';
import { isInWorkspace, resolveInWorkspace } from '../workspace.ts';
import type { PermissionRule } from '../../rules/rule-types.ts';
import { firstWordOf } from '../../rules/shell-pattern.ts';
import { indexShellRules, type ShellRuleIndex } from '../../rules/shell-rule-index.ts';
import { type AskVerdict, describeRule, ruleStep, strongerAsk, type Verdict } from '../verdict.ts';

/** At most this many rules are suggested for one compound command. */
export const maxSuggestedRules = 5;

/** What the Bash flow needs besides the per-subcommand context. */
export interface BashFlowContext extends SubcommandCheckContext {
  analyzer: ShellAnalyzer;
  /** The call's own analysis of the command, when the pipeline prepared it (used only if it fits). */
  preparedAnalysis?: PreparedShellAnalysis | undefined;
}

const analysisAsk = (reason: string): AskVerdict => ({
  behavior: 'ask',
  kind: 'analysis',
  reason,
  classifierApprovable: true,
  steps: [{ stage: 'analysis', outcome: 'ask', detail: `The command must be asked about: ${reason}.` }],
  suggestions: [],
});

/**
 * Deny rules tried on text the analyser could not split: the whole text and naive operator-split
 * pieces, each looked up by its first word.
 */
function denyOnRawText(command: string | RawPieces, rules: ShellRuleIndex): PermissionRule | undefined {
  if (rules.size === 0) return undefined;
  const pieces = typeof command === 'string' ? rawPieces(command) : command;
  const spellings = new Set<string>();
  for (const piece of pieces) {
    // Spelled out only when a rule could match one of its spellings' first words.
    if (!rawSpellingFirstWords(piece).some((word) => rules.mayMatchFirstWord(word))) continue;
    const words = piece.split(/\s+/).filter((word) => !isAssignment(word));
    const first = stripQuotes(words[0] ?? '');
    spellings.add(piece);
    spellings.add(words.join(' '));
    spellings.add([first.slice(first.lastIndexOf('/') + 1), ...words.slice(1)].join(' '));
  }
  return rules.find([...spellings]);
}

/** The distinct pieces of a raw command text: the whole text and its naive operator-split pieces. */
type RawPieces = ReadonlySet<string>;

function rawPieces(command: string): RawPieces {
  // A long chain repeats its pieces: each distinct piece is spelled once.
  const pieces = new Set<string>();
  const whole = command.trim();
  if (whole) pieces.add(whole);
  for (const piece of command.split(/&&|\|\||[;|&\n()`]|\$\(/)) {
    const trimmed = piece.trim();
    if (trimmed) pieces.add(trimmed);
  }
  return pieces;
}

const isAssignment = (word: string) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);
const stripQuotes = (word: string) => word.replace(/^[\\='"]+|['"]+$/g, '');

/** The first words of a piece's three raw spellings, found without splitting the whole piece. */
function rawSpellingFirstWords(piece: string): string[] {
  const wordPattern = /\S+/g;
  let first = '';
  for (let match = wordPattern.exec(piece); match; match = wordPattern.exec(piece)) {
    if (!isAssignment(match[0])) {
      first = match[0];
      break;
    }
  }
  const stripped = stripQuotes(first);
  return [firstWordOf(piece), first, stripped.slice(stripped.lastIndexOf('/') + 1)];
}

const noShellRules = indexShellRules([]);

/** An analyser failure is treated like a command too complex to check: it asks, it never crashes. */
function analyzeSafely(
  analyzer: BashFlowContext['analyzer'],
  command: string,
  cwd: string,
  home: string,
  prepared: PreparedShellAnalysis | undefined,
): CommandAnalysisLike {
  try {
    // The call's own analysis when it was prepared by this analyser for this command (one parse).
    const adopted = adoptPreparedAnalysis(prepared, analyzer.analyzeCommand, command, { cwd, home });
    return adopted ?? analyzer.analyzeCommand(command, { cwd, home });
  } catch (error) {
    return { kind: 'too-complex', reason: `the shell analyser failed (${errorMessage(error)})` };
  }
}

const programOf = (subcommand: AnalyzedSubcommandLike) => subcommand.argv[0] ?? '';

/** Checks that a program about to be allowed does not run the project's code instead (one per program). */
const projectCodeBeforeAllow = (
  subcommand: AnalyzedSubcommandLike,
  verdict: Verdict,
  context: IndexedCheckContext & BashFlowContext,
): Verdict =>
  cargoConfigurationBeforeAllow(
    subcommand,
    makeDryRunBeforeAllow(subcommand, pythonPathBeforeAllow(subcommand, verdict, context.mode), context.mode),
    context.mode,
    context.workspace.home,
  );

/**
 * A git invocation about to be allowed without a person (read-only, or by an allow rule) is allowed
 * only once the configuration of the repository it will use has been inspected and holds nothing
 * that runs a program (core.fsmonitor, diff.external, textconv, filters, gpg.program, aliases…).
 * Otherwise it asks, and only a person can answer. bypassPermissions skips the inspection: it
 * allows commands that run anything anyway.
 */
function inspectGitBeforeAllow(
  subcommand: AnalyzedSubcommandLike,
  verdict: Verdict & { behavior: 'allow' },
  context: IndexedCheckContext & BashFlowContext,
): Verdict {
  const program = programOf(subcommand);
  if (program.slice(program.lastIndexOf('/') + 1) !== 'git' || context.mode === 'bypassPermissions')
    return verdict;
  const label = subcommandLabel(subcommand);
  const inspect = context.workspace.inspectGit ?? inspectGitInvocation;
  let inspection: GitInspection;
  try {
    inspection = inspect({
      argv: subcommand.argv,
      ...(subcommand.argKinds ? { argKinds: subcommand.argKinds } : {}),
      envVars: subcommand.envVars,
      cwd: subcommand.cwd,
      home: context.workspace.home,
    });
  } catch (error) {
    inspection = {
      ok: false,
      reason: `the repository configuration could not be inspected (${errorMessage(error)})`,
    };
  }
  const configuredRead = inspection.ok
    ? unreadableConfiguredPath(inspection, subcommand, context)
    : undefined;
  if (configuredRead) inspection = { ok: false, reason: configuredRead };
  if (inspection.ok)
    return {
      ...verdict,
      steps: [
        ...verdict.steps,
        {
          stage: 'safety',
          outcome: 'allow',
          detail: `Repository configuration for ${label} inspected: ${inspection.detail}.`,
        },
      ],
    };
  const reason = `${inspection.reason}; approve ${label} only if you trust this repository`;
  return {
    behavior: 'ask',
    kind: 'safety',
    reason,
    classifierApprovable: false,
    steps: [
      {
        stage: 'safety',
        outcome: 'ask',
        detail: `Repository configuration for ${label}: ${inspection.reason}.`,
        classifierApprovable: false,
      },
    ],
    suggestions: [],
  };
}

/**
 * A path the repository configuration makes git open (`core.worktree`, `blame.ignoreRevsFile`), or
 * a git directory, object store or alternate that a working directory's `.git` names, is a read of
 * the command: outside the working directories (unless a Read allow rule covers it), under a Read
 * deny rule, or unresolvable, it is why the call asks.
 */
function unreadableConfiguredPath(
  inspection: Extract<GitInspection, { ok: true }>,
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): string | undefined {
  const cwd = subcommand.cwd ?? context.workspace.cwd;
  const named = (directory: string) => {
    const path = resolveInWorkspace(directory, context.workspace, cwd);
    return !isUnresolvable(path) && isInWorkspace(path, context.workspace);
  };
  const judged = [
    ...(inspection.reads ?? []).map((path) => ({
      path,
      what: 'the repository configuration makes git read',
    })),
    ...(inspection.storeReads ?? [])
      .filter((store) => named(store.namedIn))
      .map((store) => ({
        path: store.path,
        what: store.what ?? `${store.namedIn}/.git makes git read its history from`,
      })),
  ];
  for (const { path: read, what } of judged) {
    const path = resolveInWorkspace(read, context.workspace, cwd);
    const why = isUnresolvable(path)
      ? 'which cannot be resolved before it runs'
      : context.pathRules.readDeny.find(path)
        ? 'which a Read deny rule covers'
        : !isInWorkspace(path, context.workspace) && !context.pathRules.readAllow?.find(path)
          ? 'outside the working directories'
          : undefined;
    if (why) return `${what} ${read}, ${why}`;
  }
  return undefined;
}

/**
 * Decides a shell command: too-complex → only deny rules on the raw text, then ask; more than 50
 * subcommands or more than 10,000 characters → every subcommand still checked against deny, then
 * ask; several `cd`s or `cd` with `git` → ask; otherwise each subcommand on its own (deny → ask →
 * paths → allow → read-only), aggregated: any deny denies, all allowed allows, else ask with at most
 * five suggested rules.
 */
/** A command the analyser gave up on: deny and ask rules are tried on its raw pieces, then it asks. */
function tooComplexVerdict(command: string, reason: string, context: IndexedCheckContext): Verdict {
  const pieces = rawPieces(command);
  const rule = denyOnRawText(pieces, context.shellRules.deny);
  if (rule)
    return {
      behavior: 'deny',
      reason: `the command matches ${describeRule(rule)}`,
      rule,
      steps: [ruleStep(rule, 'deny', 'The unparsed command text matches this deny rule.')],
    };
  const askRule = denyOnRawText(pieces, context.shellRules.ask);
  if (askRule)
    return {
      ...analysisAsk(reason),
      kind: 'rule',
      rule: askRule,
      reason: `the command matches ${describeRule(askRule)}`,
    };
  // Unchecked, it could write anything; where its text names a protected path, that is a safety
  // question, which no mode (bypassPermissions included) answers alone.
  const named = protectedPathInText(command);
  if (named)
    return ask(
      'safety',
      `the command is too complex to check (${reason}) and names ${named.piece}, which is protected (${named.reason})`,
    );
  return analysisAsk(`the command is too complex to check (${reason})`);
}

/** What asks about the command as a whole: its size, its directory changes, git after `cd`, emptiness. */
function commandWideAsks(
  analysis: Extract<CommandAnalysisLike, { kind: 'analyzed' }>,
  context: BashFlowContext,
): AskVerdict[] {
  const { subcommands } = analysis;
  const asks: AskVerdict[] = [];
  if (analysis.tooManySubcommands) asks.push(analysisAsk(`it has more than 50 subcommands`));
  if (analysis.tooLong) asks.push(analysisAsk('it is longer than 10,000 characters'));
  const cdCount = subcommands.filter((subcommand) =>
    ['cd', 'pushd', 'popd'].includes(programOf(subcommand)),
  ).length;
  if (cdCount > 1 || (analysis.cdCount ?? 0) > 1)
    asks.push(analysisAsk('it changes directory more than once'));
  if (
    (analysis.cdWithGit === true ||
      (cdCount > 0 && subcommands.some((subcommand) => programOf(subcommand) === 'git'))) &&
    !readOnlyGitAfterOneCd(analysis.cdCount ?? cdCount, cdCount, subcommands, context)
  ) {
    asks.push(analysisAsk('it changes directory and runs git (hooks of another repository could run)'));
  }
  if (subcommands.length === 0) asks.push(analysisAsk('no command was found in it'));
  if (cdCount > 0) {
    const entered = protectedDirectoryEntered(subcommands, context.workspace, recordsOnly);
    if (entered)
      asks.push(
        ask(
          'safety',
          `${subcommandLabel(entered.later)} is not read-only and runs after a change into ${entered.directory}, which is protected (${entered.reason})`,
          { classifierApprovable: false },
        ),
      );
  }
  return asks;
}

/** A subcommand nothing allowed or objected to: it asks, suggesting a rule for it. */
function unallowedAsk(subcommand: AnalyzedSubcommandLike): AskVerdict {
  const label = subcommandLabel(subcommand);
  return {
    behavior: 'ask',
    kind: 'default',
    reason: `${label} is not read-only and no rule allows it`,
    classifierApprovable: true,
    steps: [
      { stage: 'rule', outcome: 'passthrough', detail: `No rule allows ${label}, and it is not read-only.` },
    ],
    suggestions: [],
  };
}

/**
 * The command's verdict from its subcommands' (no deny among them): allowed when every one is and
 * nothing asks about the whole; else the strongest ask, after the allowed subcommands' trace lines,
 * with the rules that would allow it next time (none for safety asks or past the limits).
 */
function combineVerdicts(
  results: ReadonlyArray<{ subcommand: AnalyzedSubcommandLike; verdict: Verdict | undefined }>,
  wideAsks: readonly AskVerdict[],
  pastLimits: boolean,
  family: string,
): Verdict {
  let pending: AskVerdict | undefined;
  for (const ask of wideAsks) pending = pending ? strongerAsk(pending, ask) : ask;
  const steps = [];
  const suggestions = [];
  for (const { subcommand, verdict } of results) {
    if (verdict?.behavior === 'allow') {
      steps.push(...verdict.steps);
      continue;
    }
    const ask = verdict?.behavior === 'ask' ? verdict : unallowedAsk(subcommand);
    pending = pending ? strongerAsk(pending, ask) : ask;
    if (verdict?.behavior === 'ask') suggestions.push(...verdict.suggestions);
    else suggestions.push(suggestRule(subcommand, family));
  }
  if (pending) {
    const unique = [
      ...new Map(suggestions.map((suggestion) => [suggestion.ruleContent, suggestion])).values(),
    ];
    const current: AskVerdict = pending;
    return {
      ...current,
      steps: [...steps, ...current.steps],
      suggestions: current.kind === 'safety' || pastLimits ? [] : unique.slice(0, maxSuggestedRules),
    };
  }
  const reason =
    results.length === 1 ? (results[0]?.verdict?.reason ?? 'it is allowed') : 'every subcommand is allowed';
  return { behavior: 'allow', reason, steps };
}

export function evaluateShellCommand(command: string, cwd: string, given: BashFlowContext): Verdict {
  return evaluateIndexedShellCommand(command, cwd, indexBashFlowContext(given), given.preparedAnalysis);
}

/** The Bash flow's context with every rule list compiled. */
export type IndexedBashFlowContext = IndexedCheckContext & { analyzer: ShellAnalyzer };

/** Compiles a Bash flow context once, for callers that decide many commands against it. */
export function indexBashFlowContext(given: BashFlowContext): IndexedBashFlowContext {
  return { ...indexCheckContext(given), analyzer: given.analyzer };
}

/** {@link evaluateShellCommand} against a context compiled by {@link indexBashFlowContext}. */
export function evaluateIndexedShellCommand(
  command: string,
  cwd: string,
  context: IndexedBashFlowContext,
  preparedAnalysis: PreparedShellAnalysis | undefined,
): Verdict {
  const analysis = analyzeSafely(context.analyzer, command, cwd, context.workspace.home, preparedAnalysis);
  if (analysis.kind === 'too-complex') return tooComplexVerdict(command, analysis.reason, context);
  const { subcommands } = analysis;
  // Past the limits the call asks whatever allow rules say: only objections (deny and ask rules,
  // paths, safety checks) are looked for, and no rule is suggested.
  const pastLimits = analysis.tooManySubcommands || analysis.tooLong;
  const checking = pastLimits
    ? { ...context, shellRules: { ...context.shellRules, allow: noShellRules } }
    : context;
  const results = subcommands.map((subcommand) => {
    const verdict = checkSubcommand(subcommand, checking);
    return {
      subcommand,
      verdict:
        verdict?.behavior === 'allow'
          ? projectCodeBeforeAllow(subcommand, inspectGitBeforeAllow(subcommand, verdict, context), context)
          : verdict,
    };
  });
  const denied = results.find((result) => result.verdict?.behavior === 'deny');
  if (denied?.verdict) return denied.verdict;
  const rawDeny = subcommands.length === 0 ? denyOnRawText(command, context.shellRules.deny) : undefined;
  if (rawDeny) {
    return {
      behavior: 'deny',
      reason: `the command matches ${describeRule(rawDeny)}`,
      rule: rawDeny,
      steps: [ruleStep(rawDeny, 'deny', 'The command text matches this deny rule.')],
    };
  }
  return combineVerdicts(results, commandWideAsks(analysis, context), pastLimits, context.family);
}

/**
 * `cd src && git status`: one directory change, and every git call is read-only and runs in a known
 * directory inside the working directories (link and target). The repository there is as much the
 * user's as the one at the start, and git's configuration is judged per directory a call runs in.
 */
function readOnlyGitAfterOneCd(
  walkedCds: number,
  listedCds: number,
  subcommands: readonly AnalyzedSubcommandLike[],
  context: BashFlowContext,
): boolean {
  if (walkedCds !== 1 || listedCds !== 1) return false;
  return subcommands
    .filter((subcommand) => programOf(subcommand) === 'git')
    .every((subcommand) => {
      if (!subcommand.readOnly || subcommand.cwd === null) return false;
      const directory = resolveInWorkspace(subcommand.cwd, context.workspace, subcommand.cwd);
      return !isUnresolvable(directory) && isInWorkspace(directory, context.workspace);
    });
}

/** Whether a mode lets a shell analysis ask become an allow (bypass, when no shell deny/ask rule could be dodged). */
export function shellRulesPresent(context: SubcommandCheckContext): boolean {
  return (
    ruleCount(context.shellRules.deny) > 0 ||
    ruleCount(context.shellRules.ask) > 0 ||
    ruleCount(context.pathRules.readDeny) > 0 ||
    ruleCount(context.pathRules.writeDeny) > 0
  );
}

const ruleCount = (rules: readonly PermissionRule[] | { size: number }): number =>
  Array.isArray(rules) ? rules.length : (rules as { size: number }).size;
