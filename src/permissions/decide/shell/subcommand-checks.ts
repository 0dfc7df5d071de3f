/** The checks the subcommand decision table (subcommand-steps.ts) is built from, each about one concern. */
import type { PermissionSuggestion } from '../../../core/index.ts';
import { type CanonicalPath, isUnresolvable, type RealpathFn } from '../../paths/canonical-path.ts';
import { repositoryControlReason } from '../../git-config/repository-paths.ts';
import { isCriticalRemovalPath, protectedPathReason } from '../../paths/protected-paths.ts';
import { isInsideDirectory } from '../../paths/canonical-path.ts';
import { subcommandLabel } from './command-text.ts';
import { type AskVerdict, describeRule, ruleStep, strongerAsk, type Verdict } from '../verdict.ts';
import { isInWorkspace, resolveInWorkspace, type Workspace, workingDirectories } from '../workspace.ts';
import type { PermissionRule } from '../../rules/rule-types.ts';
import { matchesShellPattern } from '../../rules/shell-pattern.ts';
import { canonicalCommandText } from './command-text.ts';
import { harmlessWriteTargets, linkFollowingRead, namesOnlyCommands } from './command-paths.ts';
import { embeddedCommandSpellings } from './embedded-commands.ts';
import { programStartingCode } from './inline-code.ts';
import { otherUserWrapper } from './risky-arguments.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import { isDynamicWord } from './shell-contract.ts';
import type { IndexedCheckContext } from './check-context.ts';
import type { PathRuleIndex } from '../../rules/path-rule-index.ts';
import { carriedNameLimits, carriedProtectedName, globMatches } from './carried-names.ts';

/** Read-only commands that do not open their arguments as files, so their words need no workspace check. */
export const nonReadingCommands = new Set([
  'echo',
  'printf',
  'true',
  'false',
  'pwd',
  'which',
  'type',
  'whoami',
  'id',
  'uname',
  'hostname',
  'basename',
  'dirname',
  'seq',
  'expr',
  'test',
  '[',
  '[[',
  'set',
  'break',
  'continue',
]);

/** Commands acceptEdits lets run inside the working directories (they only create, move or remove files). */
export const acceptEditsCommands = new Set(['mkdir', 'touch', 'rm', 'rmdir', 'mv', 'cp', 'sed']);

/** Resolves a word against the subcommand's directory; relative words are unresolvable when that is unknown. */
export function resolveFrom(
  word: string,
  subcommand: AnalyzedSubcommandLike,
  workspace: Workspace,
  realpath?: RealpathFn,
) {
  if (subcommand.cwd === null && !word.startsWith('/') && !word.startsWith('~')) {
    return { unresolvable: 'the directory it runs in is not known' };
  }
  return resolveInWorkspace(word, workspace, subcommand.cwd ?? workspace.cwd, realpath);
}

/** The trace stage an ask of this kind comes from. */
const askStage = {
  rule: 'rule',
  safety: 'safety',
  analysis: 'analysis',
  workspace: 'analysis',
  default: 'analysis',
} as const;

/** An ask verdict; unless a caller gives steps, its reason becomes one, so `check` can show it. */
export const ask = (
  kind: AskVerdict['kind'],
  reason: string,
  extra: Partial<AskVerdict> = {},
): AskVerdict => ({
  behavior: 'ask',
  kind,
  reason,
  classifierApprovable: true,
  steps: [
    { stage: askStage[kind], outcome: 'ask', detail: `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.` },
  ],
  suggestions: [],
  ...extra,
});

/**
 * A safety ask about code the project chooses (a module that shadows the standard library, a
 * makefile that runs commands in a dry run, a toolchain the project names): only a person who trusts
 * the project can settle it.
 */
export function projectCodeAsk(reason: string): AskVerdict {
  return {
    behavior: 'ask',
    kind: 'safety',
    reason: `${reason}; approve it only if you trust this project`,
    classifierApprovable: false,
    steps: [
      {
        stage: 'safety',
        outcome: 'ask',
        detail: `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`,
        classifierApprovable: false,
      },
    ],
    suggestions: [],
  };
}

/**
 * Programs that run whatever code their arguments name: a prefix rule for them would allow anything,
 * so they are only ever suggested as the exact command.
 */
const codeRunners = new Set([
  'node',
  'nodejs',
  'deno',
  'bun',
  'python',
  'python2',
  'python3',
  'ruby',
  'perl',
  'php',
  'lua',
  'bash',
  'sh',
  'zsh',
  'dash',
  'fish',
  'ksh',
  'pwsh',
  'powershell',
  'osascript',
  'env',
  'xargs',
  'sudo',
  'doas',
  'eval',
  'exec',
  'source',
  '.',
  'npx',
  'bunx',
  'pnpx',
  'uvx',
  'time',
  'timeout',
  'nice',
  'nohup',
  'watch',
  'ssh',
  'docker',
  'kubectl',
]);

/** Escapes characters that would act as wildcards, so the rule matches only this exact text. */
function exactRuleContent(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\*/g, '\\*');
}

/**
 * A rule suggestion that would allow this subcommand next time: the command and its subcommand as a
 * prefix (`Bash(npm run *)`, `Bash(git commit *)`) when the second word is a plain lowercase
 * subcommand; otherwise, and always for programs that run arbitrary code, the exact command.
 */
export function suggestRule(subcommand: AnalyzedSubcommandLike, family: string): PermissionSuggestion {
  // As another user, the rule must name the wrapper: it is the only kind that covers the call.
  if (otherUserWrapper(subcommand) !== undefined)
    return {
      toolName: family,
      ruleContent: exactRuleContent(canonicalCommandText(subcommand.rawArgv)),
      behavior: 'allow',
    };
  const [program = '', second] = subcommand.argv;
  const exact = {
    toolName: family,
    ruleContent: exactRuleContent(canonicalCommandText(subcommand.argv)),
    behavior: 'allow' as const,
  };
  if (subcommand.argv.length <= 1 || codeRunners.has(program)) return exact;
  if (second === undefined || !/^[a-z][a-z0-9-]*$/.test(second)) return exact;
  return { toolName: family, ruleContent: `${program} ${second} *`, behavior: 'allow' };
}

/**
 * What writing one target means for the subcommand: a deny, an ask, or nothing to object to
 * (undefined): harmless targets, files an Edit allow rule covers, and writes inside the working
 * directories in the modes that accept edits.
 */
function writeTargetVerdict(
  target: string,
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
  expanded = false,
): Verdict | undefined {
  if (harmlessWriteTargets.has(target)) return undefined;
  if (!expanded && /[*?[]/.test(target) && !isDynamicWord(target)) {
    const matches = patternWriteTargets(target, subcommand, context.workspace);
    if (matches !== undefined)
      return strongestWrite(matches, (match) => writeTargetVerdict(match, subcommand, context, true));
  }
  if (
    isDynamicWord(target) ||
    (!expanded && /[*?[]/.test(target)) ||
    (target.startsWith('~') && !target.startsWith('~/'))
  )
    return ask('safety', `it writes to ${target}, which is only known when the command runs`);
  const path = resolveFrom(target, subcommand, context.workspace);
  if (isUnresolvable(path)) return ask('safety', `it writes to ${target}, and ${path.unresolvable}`);
  const deny = context.pathRules.writeDeny.find(path);
  if (deny)
    return {
      behavior: 'deny',
      reason: `it writes ${path.lexical}, denied by ${describeRule(deny)}`,
      rule: deny,
      steps: [ruleStep(deny, 'deny', `Writing ${path.lexical} is denied.`)],
    };
  if (
    path.lexical.startsWith('/dev/') ||
    path.physical.startsWith('/dev/') ||
    path.lexical.startsWith('/proc/')
  )
    return ask('safety', `it writes to the device ${path.lexical}`);
  const askRule = context.pathRules.writeAsk.find(path);
  if (askRule)
    return ask('rule', `writing ${path.lexical} matches ${describeRule(askRule)}`, {
      rule: askRule,
      steps: [ruleStep(askRule, 'ask', `Writing ${path.lexical} must be asked about.`)],
    });
  const protectedReason =
    protectedPathReason(path.lexical) ??
    protectedPathReason(path.physical) ??
    repositoryControlReason(path.physical, context.workspace.projectRoot, context.workspace.home);
  if (protectedReason)
    return ask('safety', `it writes ${path.lexical}, which is protected (${protectedReason})`);
  if (!isInWorkspace(path, context.workspace))
    return ask('workspace', `it writes ${path.lexical}, outside the working directories`);
  if (context.pathRules.writeAllow.find(path)) return undefined;
  if (context.mode === 'acceptEdits' || context.mode === 'auto' || context.mode === 'bypassPermissions')
    return undefined;
  return ask('default', `it writes ${path.lexical}`);
}

/**
 * What a pattern write target expands to on disk (itself when it matches nothing: bash then passes
 * the word as written), or undefined without a disk or past the bound, where it is asked about.
 */
function patternWriteTargets(
  target: string,
  subcommand: AnalyzedSubcommandLike,
  workspace: Workspace,
): string[] | undefined {
  if (workspace.scanLinks === undefined || subcommand.cwd === null) return undefined;
  const cwd = subcommand.cwd ?? workspace.cwd;
  const matches = globMatches(target.startsWith('~/') ? `${workspace.home}/${target.slice(2)}` : target, cwd);
  if (matches.length > carriedNameLimits.entries) return undefined;
  return matches.length > 0 ? matches : [target];
}

/** The first deny among verdicts, else the strongest ask, else undefined. */
function strongestWrite(
  targets: readonly string[],
  judge: (target: string) => Verdict | undefined,
): Verdict | undefined {
  let pending: AskVerdict | undefined;
  for (const target of targets) {
    const verdict = judge(target);
    if (verdict?.behavior === 'deny') return verdict;
    if (verdict?.behavior === 'ask') pending = pending ? strongerAsk(pending, verdict) : verdict;
  }
  return pending;
}

/** The first deny among the subcommand's write targets, else the strongest ask, else undefined. */
export function checkWrites(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): Verdict | undefined {
  let pending: AskVerdict | undefined;
  for (const target of subcommand.writesTo) {
    const verdict = writeTargetVerdict(target, subcommand, context);
    if (verdict?.behavior === 'deny') return verdict;
    if (verdict?.behavior === 'ask') pending = pending ? strongerAsk(pending, verdict) : verdict;
  }
  const carried = carriedProtectedName(subcommand, context.workspace);
  if (carried === undefined) return pending;
  const verdict =
    'unchecked' in carried
      ? ask('safety', `it copies names that could not all be checked: ${carried.unchecked}`)
      : ask(
          'safety',
          `it carries ${carried.path} into its destination, which is protected (${carried.reason})`,
        );
  return pending ? strongerAsk(pending, verdict) : verdict;
}

/** True when the command writes a file through an output redirect (not to /dev/null and the like). */
export function writesThroughRedirect(subcommand: AnalyzedSubcommandLike): boolean {
  return subcommand.redirects.some(
    (redirect) =>
      /^(?:>|>>|>\||&>|&>>|>&)$/.test(redirect.operator) && !harmlessWriteTargets.has(redirect.target),
  );
}

export function checkCriticalRemoval(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): AskVerdict | undefined {
  const [program = '', ...args] = subcommand.argv;
  if (!['rm', 'rmdir'].includes(program.slice(program.lastIndexOf('/') + 1))) return undefined;
  const { workspace } = context;
  for (const arg of args) {
    if (arg.startsWith('-') && arg !== '-') continue;
    const critical = (() => {
      if (isDynamicWord(arg) && !/^(\$HOME|\$\{HOME\})\/[^$`]+$/.test(arg)) return true;
      const expanded = arg.replace(/^(\$HOME|\$\{HOME\})/, '~');
      const isGlob = /[*?[]/.test(expanded);
      const path = resolveFrom(expanded, subcommand, workspace);
      if (isUnresolvable(path)) return true;
      const guard = {
        cwd: subcommand.cwd ?? workspace.cwd,
        home: workspace.home,
        projectRoot: workspace.projectRoot,
        additionalDirectories: workspace.additionalDirectories,
      };
      return (
        isCriticalRemovalPath(path.lexical, guard, isGlob) ||
        isCriticalRemovalPath(path.physical, guard, isGlob)
      );
    })();
    if (critical) {
      return ask('safety', `${subcommandLabel(subcommand)} could remove ${arg}, a critical path`, {
        classifierApprovable: false,
      });
    }
  }
  return undefined;
}

/**
 * Whether a directory argument holds what a read deny rule covers, so a recursive reader (`grep -r`,
 * `rg`, `tar`, `cp -r`) would read it: a rule confined to a directory inside it, or a rule whose
 * wildcards reach into it from above (bare `*.key`, any-depth or one-level patterns) when a bounded scan of
 * the directory meets a name the rule covers (or cannot finish).
 */
export function directoryHoldsDeniedPath(
  path: { lexical: string; physical: string },
  context: IndexedCheckContext,
): boolean {
  return directoryHoldsCoveredPath(path, context.pathRules.readDeny, context.workspace);
}

/** {@link directoryHoldsDeniedPath} for any compiled list of deny or ask path rules. */
export function directoryHoldsCoveredPath(
  path: { lexical: string; physical: string },
  rules: PathRuleIndex,
  workspace: Workspace,
): boolean {
  return rules.holdsCoveredPath(path, workspace.scanLinks);
}

/** A glob argument that could expand to a path some read deny rule covers, or undefined. */
export function globReachingDeniedPath(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
  rules: PathRuleIndex = context.pathRules.readDeny,
): string | undefined {
  if (rules.size === 0) return undefined;
  return subcommand.argv.slice(1).find((word, offset) => {
    const kind = subcommand.argKinds?.[offset + 1];
    if (kind !== 'glob' && !(kind === undefined && /[*?[]/.test(word))) return false;
    const literal = word.split(/[*?[]/)[0] ?? '';
    const directory = literal.includes('/') ? literal.slice(0, literal.lastIndexOf('/') + 1) : '.';
    const resolved = resolveFrom(directory, subcommand, context.workspace);
    if (isUnresolvable(resolved)) return true;
    return rules.firstAround([resolved.lexical, resolved.physical]) !== undefined;
  });
}

/**
 * The directory a git call in `cwd` may show tracked files of: the working directory holding `cwd`
 * (the repository root is at or above `cwd`, and a project is its own repository), or `/` when `cwd`
 * is outside every working directory.
 */
function repositoryScope(cwd: string, workspace: Workspace): string {
  const directories = [workspace.projectRoot, ...workspace.additionalDirectories];
  return directories.find((directory) => isInsideDirectory(cwd, directory)) ?? '/';
}

/**
 * The read deny rules an indirect read may dodge: every one when file names come from elsewhere; for
 * git history, those whose files may be tracked in the repository around `cwd`.
 */
function dodgeableReadDeny(
  read: { kind: 'names' | 'history' },
  cwd: string,
  context: IndexedCheckContext,
): PermissionRule | undefined {
  if (read.kind === 'names') return context.pathRules.readDeny.rules[0];
  return context.pathRules.readDeny.firstAround([repositoryScope(cwd, context.workspace)]);
}

/** An ask when the command reads files its words do not name and a read deny rule could be dodged. */
export function indirectReadAsk(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): AskVerdict | undefined {
  if (context.pathRules.readDeny.size === 0) return undefined;
  const label = subcommandLabel(subcommand);
  for (const read of subcommand.indirectReads ?? []) {
    const rule = dodgeableReadDeny(read, subcommand.cwd ?? context.workspace.cwd, context);
    if (!rule) continue;
    const next =
      read.kind === 'history'
        ? 'name a commit (REV~0) and the files after `--` (git diff REV~0 -- src/app.ts), or ask the user'
        : 'name the files in the command itself, or ask the user';
    return ask(
      'safety',
      `${label} reads ${read.what}, so ${describeRule(rule)} cannot be checked before it runs; ${next}`,
      { rule, classifierApprovable: false },
    );
  }
  return undefined;
}

/**
 * A path argument of a command that is not read-only and that an Edit deny rule covers, or a directory
 * holding such paths: the analyser knows the write targets of common commands only, and `git checkout
 * -- src/a.ts` or `git restore src` write what they name.
 */
export function argumentUnderWriteDeny(
  paths: ReadonlyArray<{ lexical: string; physical: string }>,
  context: IndexedCheckContext,
  writeDeny: PathRuleIndex = context.pathRules.writeDeny,
): { path: string; rule: PermissionRule } | undefined {
  if (writeDeny.size === 0) return undefined;
  for (const path of paths) {
    const directories = [path.lexical, path.physical];
    // A rule whose wildcards reach into the directory from above (`Edit(*.json)`) counts when a
    // bounded scan finds a file it covers there: `rm -rf config` removes config/deep/prod.json.
    const rule =
      writeDeny.find(path) ??
      writeDeny.firstInside(directories) ??
      (writeDeny.holdsCoveredPath(path, context.workspace.scanLinks)
        ? writeDeny.firstAround(directories)
        : undefined);
    if (rule) return { path: path.lexical, rule };
  }
  return undefined;
}

/** An ask when the command's arguments may run a command a deny or ask rule covers. */
export function embeddedRuleMatch(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): AskVerdict | undefined {
  const { deny, ask: askRules } = context.shellRules;
  if (deny.size === 0 && askRules.size === 0) return undefined;
  // A spelling's first word is its program's name: only names some rule is filed under are spelled.
  const spellings = embeddedCommandSpellings(
    subcommand,
    (name) => deny.mayMatchFirstWord(name) || askRules.mayMatchFirstWord(name),
  );
  if (spellings.length === 0) return undefined;
  const found = deny.findEntry(spellings) ?? askRules.findEntry(spellings);
  if (found) {
    const { rule, pattern } = found;
    const inner = spellings.find((text) => matchesShellPattern(pattern, text)) ?? '';
    return ask(
      'safety',
      `${subcommandLabel(subcommand)} may run \`${inner}\`, which ${describeRule(rule)} covers`,
      {
        rule,
        classifierApprovable: false,
        steps: [
          ruleStep(
            rule,
            'ask',
            `An argument of ${subcommandLabel(subcommand)} may run a command this rule covers.`,
          ),
        ],
      },
    );
  }
  return undefined;
}

/**
 * An ask when the command a deny or ask rule would have to be checked against is only known when it
 * runs: words xargs appends, or code that starts programs by computed names. Ranked below the deny
 * steps: a deny rule the call does meet still denies.
 */
export function commandKnownOnlyAtRunTime(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): AskVerdict | undefined {
  const { deny, ask: askRules } = context.shellRules;
  if (deny.size === 0 && askRules.size === 0) return undefined;
  return xargsSuppliedWords(subcommand) ?? codeStartingPrograms(subcommand);
}

/**
 * Code in another language on the command line that can start programs by computed names
 * (`python3 -c 'os.system("r" + "m x")'`, awk `system(c)`, sed `s/…/…/e`): a deny or ask rule on a
 * command cannot be checked against it, so it asks while such a rule is in force.
 */
function codeStartingPrograms(subcommand: AnalyzedSubcommandLike): AskVerdict | undefined {
  const reason = programStartingCode(subcommand.argv);
  if (reason === undefined) return undefined;
  return ask('safety', `${reason}, so a deny or ask rule on a command cannot be checked before it runs`, {
    classifierApprovable: false,
  });
}

/**
 * xargs appends words read from its input, so the command it runs is only partly written: `xargs git`
 * may be `git push`, `xargs env` or `xargs timeout 5` any command at all. Under a deny or ask rule a
 * command fed by xargs that is not read-only (a read-only one runs nothing whatever it is given) asks.
 */
function xargsSuppliedWords(subcommand: AnalyzedSubcommandLike): AskVerdict | undefined {
  if (subcommand.origin !== 'xargs') return undefined;
  return ask(
    'safety',
    `xargs adds words from its input to ${subcommandLabel(subcommand)}, so the command a deny or ask rule may cover is only known when it runs`,
    { classifierApprovable: false },
  );
}

/**
 * The subcommand as the engine judges it: when the directory it runs in was reached through `..`
 * after a symbolic link (`cd link/..`), bash's logical `cd` and the kernel disagree on where that is,
 * so the directory counts as unknown and whatever it reads relative to it is asked about.
 */
export function withKnownCwd(
  subcommand: AnalyzedSubcommandLike,
  workspace: Workspace,
): AnalyzedSubcommandLike {
  if (subcommand.cwd === null || subcommand.cwd === workspace.cwd) return subcommand;
  const directory = resolveInWorkspace(subcommand.cwd, workspace);
  return isUnresolvable(directory) ? { ...subcommand, cwd: null } : subcommand;
}

/** What following the links under the directories a command reads adds to what it reads. */
export interface LinkReads {
  /** Every link met: deny rules are tried on each. */
  paths: CanonicalPath[];
  /** The links whose targets it reads (for a names-only walk, only links to directories). */
  reads: CanonicalPath[];
  /** A directory whose links could not all be looked at (too many entries). */
  unchecked?: string;
}

/**
 * For a command that follows symbolic links while it recurses (`grep -R`, `rg -L`, `diff -r`,
 * `cp -rL`, `find -L`, and any program not known to stay on its side of a link): every link under
 * the directories it reads is a read of the link's target. A names-only walk (`find -L`, `du -L`)
 * learns only what linked directories hold, so only those count for it.
 */
export function linkTargetsRead(
  subcommand: AnalyzedSubcommandLike,
  readPaths: readonly CanonicalPath[],
  context: IndexedCheckContext,
): LinkReads {
  const { workspace } = context;
  const following = linkFollowingRead(subcommand.argv);
  if (!following.follows || !workspace.scanLinks) return { paths: [], reads: [] };
  const within = workingDirectories(workspace);
  const scans = readPaths.map((path) => ({ path, scan: workspace.scanLinks?.(path.physical, within) }));
  if (following.defaultsToCwd && scans.every((entry) => entry.scan === undefined)) {
    const here = resolveFrom('.', subcommand, workspace);
    if (!isUnresolvable(here)) scans.push({ path: here, scan: workspace.scanLinks(here.physical, within) });
  }
  const namesOnly = namesOnlyCommands.has(subcommand.argv[0] ?? '');
  const result: LinkReads = { paths: [], reads: [] };
  for (const { path, scan } of scans) {
    if (scan === undefined) continue;
    if (!scan.complete) result.unchecked ??= path.lexical;
    for (const link of scan.links) {
      const path = { lexical: link.path, physical: link.target };
      result.paths.push(path);
      if (!namesOnly || link.directory) result.reads.push(path);
    }
  }
  return result;
}

/**
 * A deny verdict when a read deny rule covers one of the links a command reaches (as the link or as
 * its target); `describe` gives the reason and the trace line for that link.
 */
export function deniedLink(
  paths: readonly CanonicalPath[],
  context: IndexedCheckContext,
  describe: (path: CanonicalPath) => [reason: string, step: string],
): Verdict | undefined {
  for (const path of paths) {
    const rule = context.pathRules.readDeny.find(path);
    if (!rule) continue;
    const [reason, step] = describe(path);
    return {
      behavior: 'deny',
      reason: `${reason}, denied by ${describeRule(rule)}`,
      rule,
      steps: [ruleStep(rule, 'deny', step)],
    };
  }
  return undefined;
}

/** A path for messages: the link and, when it leads elsewhere, its target. */
export const describePath = (path: CanonicalPath) =>
  path.lexical === path.physical ? path.lexical : `${path.lexical} (→ ${path.physical})`;
