// Frozen copy of the permission engine before the rule index, kept only for the equivalence run
// (test/equivalence). Do not edit: it is the reference the current engine is compared with.
import { checkSubcommand, type SubcommandCheckContext, suggestRule } from './bash/check-subcommand.ts';
import type {
  AnalyzedSubcommandLike,
  CommandAnalysisLike,
  ShellAnalyzer,
} from '../../../src/permissions/decide/shell/shell-contract.ts';
import { errorMessage } from '../../../src/core/index.ts';
import { type GitInspection, inspectGitInvocation } from '../../../src/permissions/git-config/inspect-git.ts';
import { isUnresolvable } from '../../../src/permissions/paths/canonical-path.ts';
import { isInWorkspace, resolveInWorkspace } from './resolve/workspace.ts';
import { compileShellPattern, matchesShellPattern } from './rules/shell-pattern.ts';
import type { PermissionRule } from '../../../src/permissions/rules/rule-types.ts';
import { type AskVerdict, describeRule, ruleStep, strongerAsk, type Verdict } from './resolve/verdict.ts';
import { subcommandLabel } from '../../../src/permissions/decide/shell/command-text.ts';

/** At most this many rules are suggested for one compound command. */
export const maxSuggestedRules = 5;

/** What the Bash flow needs besides the per-subcommand context. */
export interface BashFlowContext extends SubcommandCheckContext {
  analyzer: ShellAnalyzer;
}

const analysisAsk = (reason: string): AskVerdict => ({
  behavior: 'ask',
  kind: 'analysis',
  reason,
  classifierApprovable: true,
  steps: [{ stage: 'analysis', outcome: 'ask', detail: `The command must be asked about: ${reason}.` }],
  suggestions: [],
});

/** Deny rules tried on text the analyser could not split: the whole text and naive operator-split pieces. */
function denyOnRawText(command: string, rules: readonly PermissionRule[]): PermissionRule | undefined {
  const pieces = [command, ...command.split(/&&|\|\||[;|&\n()`]|\$\(/)]
    .map((piece) => piece.trim())
    .filter(Boolean);
  const spellings = pieces.flatMap((piece) => {
    const words = piece.split(/\s+/).filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    const first = (words[0] ?? '').replace(/^[\\='"]+|['"]+$/g, '');
    return [piece, words.join(' '), [first.slice(first.lastIndexOf('/') + 1), ...words.slice(1)].join(' ')];
  });
  return rules.find((rule) => {
    const pattern = compileShellPattern(rule.value.ruleContent ?? '');
    return spellings.some((text) => matchesShellPattern(pattern, text));
  });
}

/** An analyser failure is treated like a command too complex to check: it asks, it never crashes. */
function analyzeSafely(
  analyzer: BashFlowContext['analyzer'],
  command: string,
  cwd: string,
  home: string,
): CommandAnalysisLike {
  try {
    return analyzer.analyzeCommand(command, { cwd, home });
  } catch (error) {
    return { kind: 'too-complex', reason: `the shell analyser failed (${errorMessage(error)})` };
  }
}

const programOf = (subcommand: AnalyzedSubcommandLike) => subcommand.argv[0] ?? '';

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
  context: BashFlowContext,
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
 * Decides a shell command: too-complex → only deny rules on the raw text, then ask; more than 50
 * subcommands or more than 10,000 characters → every subcommand still checked against deny, then
 * ask; several `cd`s or `cd` with `git` → ask; otherwise each subcommand on its own (deny → ask →
 * paths → allow → read-only), aggregated: any deny denies, all allowed allows, else ask with at most
 * five suggested rules.
 */
export function evaluateShellCommand(command: string, cwd: string, context: BashFlowContext): Verdict {
  const analysis = analyzeSafely(context.analyzer, command, cwd, context.workspace.home);
  if (analysis.kind === 'too-complex') {
    const rule = denyOnRawText(command, context.shellRules.deny);
    if (rule)
      return {
        behavior: 'deny',
        reason: `the command matches ${describeRule(rule)}`,
        rule,
        steps: [ruleStep(rule, 'deny', 'The unparsed command text matches this deny rule.')],
      };
    const askRule = denyOnRawText(command, context.shellRules.ask);
    if (askRule)
      return {
        ...analysisAsk(analysis.reason),
        kind: 'rule',
        rule: askRule,
        reason: `the command matches ${describeRule(askRule)}`,
      };
    return analysisAsk(`the command is too complex to check (${analysis.reason})`);
  }
  const { subcommands } = analysis;
  const results = subcommands.map((subcommand) => {
    const verdict = checkSubcommand(subcommand, context);
    return {
      subcommand,
      verdict: verdict?.behavior === 'allow' ? inspectGitBeforeAllow(subcommand, verdict, context) : verdict,
    };
  });
  const denied = results.find((result) => result.verdict?.behavior === 'deny');
  if (denied?.verdict) return denied.verdict;
  const rawDeny = denyOnRawText(command, context.shellRules.deny);
  if (rawDeny && subcommands.length === 0) {
    return {
      behavior: 'deny',
      reason: `the command matches ${describeRule(rawDeny)}`,
      rule: rawDeny,
      steps: [ruleStep(rawDeny, 'deny', 'The command text matches this deny rule.')],
    };
  }

  let pending: AskVerdict | undefined;
  const raise = (verdict: AskVerdict) => {
    pending = pending ? strongerAsk(pending, verdict) : verdict;
  };
  if (analysis.tooManySubcommands) raise(analysisAsk(`it has more than 50 subcommands`));
  if (analysis.tooLong) raise(analysisAsk('it is longer than 10,000 characters'));
  const cdCount = subcommands.filter((subcommand) =>
    ['cd', 'pushd', 'popd'].includes(programOf(subcommand)),
  ).length;
  if (cdCount > 1 || (analysis.cdCount ?? 0) > 1) raise(analysisAsk('it changes directory more than once'));
  if (
    (analysis.cdWithGit === true ||
      (cdCount > 0 && subcommands.some((subcommand) => programOf(subcommand) === 'git'))) &&
    !readOnlyGitAfterOneCd(analysis.cdCount ?? cdCount, cdCount, subcommands, context)
  ) {
    raise(analysisAsk('it changes directory and runs git (hooks of another repository could run)'));
  }
  if (subcommands.length === 0) raise(analysisAsk('no command was found in it'));

  const steps = [];
  const suggestions = [];
  for (const { subcommand, verdict } of results) {
    if (verdict?.behavior === 'allow') {
      steps.push(...verdict.steps);
      continue;
    }
    if (verdict?.behavior === 'ask') {
      raise(verdict);
      suggestions.push(...verdict.suggestions);
      continue;
    }
    const label = subcommandLabel(subcommand);
    raise({
      behavior: 'ask',
      kind: 'default',
      reason: `${label} is not read-only and no rule allows it`,
      classifierApprovable: true,
      steps: [
        {
          stage: 'rule',
          outcome: 'passthrough',
          detail: `No rule allows ${label}, and it is not read-only.`,
        },
      ],
      suggestions: [],
    });
    suggestions.push(suggestRule(subcommand, context.family));
  }
  if (pending) {
    const unique = [
      ...new Map(suggestions.map((suggestion) => [suggestion.ruleContent, suggestion])).values(),
    ];
    const current: AskVerdict = pending;
    return {
      ...current,
      steps: [...steps, ...current.steps],
      suggestions: current.kind === 'safety' ? [] : unique.slice(0, maxSuggestedRules),
    };
  }
  return {
    behavior: 'allow',
    reason:
      subcommands.length === 1
        ? (results[0]?.verdict?.reason ?? 'it is allowed')
        : 'every subcommand is allowed',
    steps,
  };
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
    context.shellRules.deny.length > 0 ||
    context.shellRules.ask.length > 0 ||
    context.pathRules.readDeny.length > 0 ||
    context.pathRules.writeDeny.length > 0
  );
}
