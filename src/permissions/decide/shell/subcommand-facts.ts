import { isHarmlessEnvAssignment } from '../../../shell/index.ts';
import { type CanonicalPath, isUnresolvable, lexicalRealpath } from '../../paths/canonical-path.ts';
import type { PermissionRule } from '../../rules/rule-types.ts';
import { describeRule, ruleStep, type Verdict } from '../verdict.ts';
import type { IndexedCheckContext } from './check-context.ts';
import {
  listsWorkingDirectory,
  namesOnlyCommands,
  readPathCandidates,
  searchesWorkingDirectory,
} from './command-paths.ts';
import {
  canonicalCommandText,
  canonicalTextWithEnv,
  denySpellingFirstWords,
  denySpellings,
  subcommandLabel,
} from './command-text.ts';
import { expansionReads } from './expansion-reads.ts';
import { allowRuleBlocker, otherUserWrapper } from './risky-arguments.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import {
  checkWrites,
  deniedLink,
  describePath,
  directoryHoldsDeniedPath,
  globReachingDeniedPath,
  type LinkReads,
  linkTargetsRead,
  nonReadingCommands,
  resolveFrom,
  withKnownCwd,
  writesThroughRedirect,
} from './subcommand-checks.ts';

const unset: unique symbol = Symbol('unset');

/** What a subcommand reads, as far as the engine can tell before it runs. */
export interface ReadFacts {
  /** A read deny rule covers something it reads: nothing else needs to be known. */
  deny?: Verdict;
  /** The files and directories it reads, resolved. */
  readPaths: CanonicalPath[];
  /** Something it reads that cannot be resolved now (checked against read deny rules). */
  unknownRead?: string;
  /** A path only known when the command runs (`$XDG_CONFIG_HOME/x`, `~other/x`, `$(…)`): may be anywhere. */
  runtimePath?: string;
  /** A path whose `..` follows a symbolic link names two files; neither answer can be trusted. */
  ambiguousRead?: string;
  /** Why that read has more than one answer (`..` after a link, or a file with other names). */
  ambiguousReason?: string;
  /** A directory whose links could not all be looked at. */
  linksUnchecked?: string;
  /** A pattern whose matches could not all be looked at. */
  expansionUnchecked?: string;
}

/**
 * What the steps of one subcommand's decision read. Everything past the subcommand's words (what it
 * reads, with links and patterns followed on disk; what it writes; its environment; the allow rule
 * that matches it) is computed on first use, so a deny rule on the command costs no disk access.
 */
export class SubcommandFacts {
  readonly subcommand: AnalyzedSubcommandLike;
  readonly label: string;
  /** False for commands that do not open their arguments as files (`echo`, `test`). */
  readonly reading: boolean;
  // Computed on first use (`unset` until then: undefined is a valid answer).
  private readFacts: ReadFacts | undefined;
  private writeVerdict: Verdict | undefined | typeof unset = unset;
  private envClasses: { dangerous: boolean; allSafe: boolean } | undefined;
  private riskyArgument: string | undefined | typeof unset = unset;
  private matchingAllowRule: PermissionRule | undefined | typeof unset = unset;
  private denyAndAskSpellings: string[] | undefined;

  constructor(
    subcommand: AnalyzedSubcommandLike,
    readonly context: IndexedCheckContext,
  ) {
    this.subcommand = withKnownCwd(subcommand, context.workspace);
    this.label = subcommandLabel(this.subcommand);
    this.reading = !nonReadingCommands.has(this.subcommand.argv[0] ?? '');
  }

  /**
   * The spellings deny and ask rules are tried against ({@link denySpellings}); none when neither
   * rule list files a rule under any of their first words, since then no spelling could match.
   */
  get spellings(): string[] {
    if (this.denyAndAskSpellings === undefined) {
      const { deny, ask } = this.context.shellRules;
      const firstWords = denySpellingFirstWords(this.subcommand);
      const mayMatch = firstWords.some((word) => deny.mayMatchFirstWord(word) || ask.mayMatchFirstWord(word));
      this.denyAndAskSpellings = mayMatch ? denySpellings(this.subcommand) : [];
    }
    return this.denyAndAskSpellings;
  }

  reads(): ReadFacts {
    this.readFacts ??= gatherReads(this.subcommand, this.context, this.label);
    return this.readFacts;
  }

  writes(): Verdict | undefined {
    if (this.writeVerdict === unset) this.writeVerdict = checkWrites(this.subcommand, this.context);
    return this.writeVerdict;
  }

  env(): { dangerous: boolean; allSafe: boolean } {
    this.envClasses ??= envFacts(this.subcommand, this.context);
    return this.envClasses;
  }

  /** Why only exact allow rules may match (a risky argument), or undefined. */
  blocker(): string | undefined {
    if (this.riskyArgument === unset) this.riskyArgument = allowRuleBlocker(this.subcommand);
    return this.riskyArgument;
  }

  allowRule(): PermissionRule | undefined {
    if (this.matchingAllowRule === unset) this.matchingAllowRule = findAllowRule(this);
    return this.matchingAllowRule;
  }

  /**
   * A write inside the working directories that only needs approval because nothing allowed it may
   * be allowed by an explicit rule for the command (`Bash(touch *)` covers `touch notes.txt`); a
   * write through a redirect may not: `Bash(echo *)` must not let `echo x > src/app.ts` through.
   */
  ruleMaySettleWrites(): boolean {
    const writes = this.writes();
    return writes?.behavior === 'ask' && writes.kind === 'default' && !writesThroughRedirect(this.subcommand);
  }

  /** Allow rules and modes may speak only without a dangerous variable and outside plan mode (or read-only). */
  allowMaySpeak(): boolean {
    return !this.env().dangerous && !(this.context.mode === 'plan' && !this.subcommand.readOnly);
  }
}

function envFacts(subcommand: AnalyzedSubcommandLike, context: IndexedCheckContext) {
  const classes = subcommand.envVars.map((variable) =>
    isHarmlessEnvAssignment(variable.name, variable.value, subcommand.argv[0])
      ? 'safe'
      : context.classifyEnvVar(variable.name),
  );
  return {
    dangerous: classes.includes('dangerous'),
    allSafe: classes.every((envClass) => envClass === 'safe'),
  };
}

function findAllowRule(facts: SubcommandFacts): PermissionRule | undefined {
  const { subcommand } = facts;
  // As another user (`sudo git diff`), only a rule that names the wrapper speaks for it.
  const texts =
    otherUserWrapper(subcommand) !== undefined
      ? [canonicalCommandText(subcommand.rawArgv)]
      : [
          canonicalTextWithEnv(subcommand),
          ...(facts.env().allSafe ? [canonicalCommandText(subcommand.argv)] : []),
        ];
  return facts.context.shellRules.allow.find(
    texts,
    facts.blocker() === undefined ? undefined : (pattern) => pattern.kind === 'exact',
  );
}

/** The paths the subcommand's words name, resolved; stops at the first one a read deny rule covers. */
function namedReads(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
  label: string,
): ReadFacts {
  const { workspace } = context;
  const facts: ReadFacts = { readPaths: [] };
  for (const candidate of readPathCandidates(subcommand, workspace.home)) {
    if ('unknown' in candidate) {
      facts.unknownRead ??= candidate.unknown;
      facts.runtimePath ??= candidate.unknown;
      continue;
    }
    const path =
      candidate.name === true
        ? resolveFrom(candidate.path, subcommand, workspace, lexicalRealpath)
        : resolveFrom(candidate.path, subcommand, workspace);
    if (isUnresolvable(path)) {
      if (path.ambiguous || candidate.primary) facts.unknownRead ??= candidate.path;
      if (path.ambiguous && candidate.primary && facts.ambiguousRead === undefined) {
        facts.ambiguousRead = candidate.path;
        facts.ambiguousReason = path.unresolvable;
      }
      if (!path.ambiguous && candidate.primary && subcommand.cwd === null)
        facts.runtimePath ??= candidate.path;
      continue;
    }
    if (candidate.primary) facts.readPaths.push(path);
    const rule = context.pathRules.readDeny.find(path);
    if (rule)
      return {
        ...facts,
        deny: {
          behavior: 'deny',
          reason: `${label} reads ${path.lexical}, denied by ${describeRule(rule)}`,
          rule,
          steps: [ruleStep(rule, 'deny', `${label} reads ${path.lexical}.`)],
        },
      };
  }
  return facts;
}

/** Adds what links and patterns lead to; a deny on any of them ends the gathering. */
function followedReads(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
  label: string,
  facts: ReadFacts,
): ReadFacts {
  const namesOnly = namesOnlyCommands.has(subcommand.argv[0] ?? '');
  const linkReads: LinkReads = linkTargetsRead(subcommand, facts.readPaths, context);
  const followedDeny = deniedLink(linkReads.paths, context, (path) => [
    `${label} follows the symbolic link ${describePath(path)}`,
    `${label} follows a link to ${path.physical}.`,
  ]);
  if (followedDeny) return { ...facts, deny: followedDeny };
  facts.readPaths.push(...linkReads.reads);
  if (linkReads.unchecked !== undefined) {
    facts.linksUnchecked = linkReads.unchecked;
    facts.unknownRead ??= `the links under ${linkReads.unchecked}`;
  }
  const expanded = expansionReads(subcommand, context.workspace, namesOnly);
  const reachedDeny = deniedLink(expanded.paths, context, (path) => [
    `${label} reaches the symbolic link ${describePath(path)} through a pattern`,
    `${label} reaches a link to ${path.physical}.`,
  ]);
  if (reachedDeny) return { ...facts, deny: reachedDeny };
  facts.readPaths.push(...expanded.reads);
  if (expanded.unchecked !== undefined) {
    facts.expansionUnchecked = expanded.unchecked;
    facts.unknownRead ??= expanded.unchecked;
  }
  return facts;
}

function gatherReads(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
  label: string,
): ReadFacts {
  const named = namedReads(subcommand, context, label);
  if (named.deny) return named;
  const runsElsewhere = subcommand.cwd !== context.workspace.cwd;
  if (searchesWorkingDirectory(subcommand.argv) || listsWorkingDirectory(subcommand.argv, runsElsewhere)) {
    const here = resolveFrom('.', subcommand, context.workspace);
    if (isUnresolvable(here)) named.unknownRead ??= 'the directory it searches';
    else named.readPaths.push(here);
  }
  const facts = followedReads(subcommand, context, label, named);
  if (facts.deny) return facts;
  const globRead = globReachingDeniedPath(subcommand, context);
  if (globRead) facts.unknownRead ??= globRead;
  const namesOnly = namesOnlyCommands.has(subcommand.argv[0] ?? '');
  const coveringDirectory = namesOnly
    ? undefined
    : facts.readPaths.find((path) => directoryHoldsDeniedPath(path, context));
  if (coveringDirectory)
    facts.unknownRead ??= `${coveringDirectory.lexical} (a directory holding files a deny rule covers)`;
  return facts;
}
