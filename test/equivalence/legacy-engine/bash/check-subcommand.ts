// Frozen copy of the permission engine before the rule index, kept only for the equivalence run
// (test/equivalence). Do not edit: it is the reference the current engine is compared with.
import type { PermissionMode, PermissionSuggestion } from '../../../../src/core/index.ts';
import { type CanonicalPath, isUnresolvable } from '../../../../src/permissions/paths/canonical-path.ts';
import {
  isCriticalRemovalPath,
  protectedPathReason,
} from '../../../../src/permissions/paths/protected-paths.ts';
import { findPathRule, pathRuleLiteralPrefix } from '../resolve/rule-match.ts';
import { isInsideDirectory } from '../../../../src/permissions/paths/canonical-path.ts';
import { type AskVerdict, describeRule, ruleStep, strongerAsk, type Verdict } from '../resolve/verdict.ts';
import {
  isInWorkspace,
  resolveInWorkspace,
  type Workspace,
  workingDirectories,
} from '../resolve/workspace.ts';
import { compileShellPattern, matchesShellPattern } from '../rules/shell-pattern.ts';
import type { PermissionRule } from '../../../../src/permissions/rules/rule-types.ts';
import {
  canonicalCommandText,
  canonicalTextWithEnv,
  denySpellings,
} from '../../../../src/permissions/decide/shell/command-text.ts';
import {
  harmlessReadSources,
  inputSourceWords,
  harmlessWriteTargets,
  linkFollowingRead,
  namesOnlyCommands,
  readPathCandidates,
  searchesWorkingDirectory,
} from '../../../../src/permissions/decide/shell/command-paths.ts';
import { isHarmlessEnvAssignment } from '../../../../src/shell/index.ts';
import { embeddedCommandSpellings } from '../../../../src/permissions/decide/shell/embedded-commands.ts';
import { expansionReads } from '../../../../src/permissions/decide/shell/expansion-reads.ts';
import { allowRuleBlocker } from '../../../../src/permissions/decide/shell/risky-arguments.ts';
import type {
  AnalyzedSubcommandLike,
  EnvVarClass,
} from '../../../../src/permissions/decide/shell/shell-contract.ts';
import { isDynamicWord } from '../../../../src/permissions/decide/shell/shell-contract.ts';
import { readableWord } from '../../../../src/permissions/decide/shell/shell-contract.ts';
import { subcommandLabel } from '../../../../src/permissions/decide/shell/command-text.ts';

/** Rules and facts every subcommand of one command is checked against. */
export interface SubcommandCheckContext {
  mode: PermissionMode;
  workspace: Workspace;
  /** The shell family's content rules (`Bash(...)`). */
  shellRules: {
    deny: readonly PermissionRule[];
    ask: readonly PermissionRule[];
    allow: readonly PermissionRule[];
  };
  /** Path rules for what commands read and write. */
  pathRules: {
    readDeny: readonly PermissionRule[];
    writeDeny: readonly PermissionRule[];
    writeAsk: readonly PermissionRule[];
    writeAllow: readonly PermissionRule[];
    /** Read and Edit allow rules: a path they cover may be read from outside the working directories. */
    readAllow?: readonly PermissionRule[];
  };
  classifyEnvVar: (name: string) => EnvVarClass;
  /** The rule family name, for suggestions (`Bash`). */
  family: string;
}

/** Read-only commands that do not open their arguments as files, so their words need no workspace check. */
const nonReadingCommands = new Set([
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
const acceptEditsCommands = new Set(['mkdir', 'touch', 'rm', 'rmdir', 'mv', 'cp', 'sed']);

/** Resolves a word against the subcommand's directory; relative words are unresolvable when that is unknown. */
function resolveFrom(word: string, subcommand: AnalyzedSubcommandLike, workspace: Workspace) {
  if (subcommand.cwd === null && !word.startsWith('/') && !word.startsWith('~')) {
    return { unresolvable: 'the directory it runs in is not known' };
  }
  return resolveInWorkspace(word, workspace, subcommand.cwd ?? workspace.cwd);
}

const shellRuleMatches = (rule: PermissionRule, texts: readonly string[]) => {
  const pattern = compileShellPattern(rule.value.ruleContent ?? '');
  return texts.some((text) => matchesShellPattern(pattern, text));
};

/** The same input sources as the indexed engine (class input-source). */
function inputSourcePaths(subcommand: AnalyzedSubcommandLike, workspace: Workspace) {
  return inputSourceWords(subcommand).map((word) => {
    const expanded = word.replace(/^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/, workspace.home);
    if (expanded.startsWith('~') || isDynamicWord(expanded))
      return { unresolvable: `${word} is only known when it runs` };
    return resolveFrom(expanded, subcommand, workspace);
  });
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
const ask = (kind: AskVerdict['kind'], reason: string, extra: Partial<AskVerdict> = {}): AskVerdict => ({
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

function checkWrites(
  subcommand: AnalyzedSubcommandLike,
  context: SubcommandCheckContext,
): Verdict | undefined {
  let pending: AskVerdict | undefined;
  const raise = (verdict: AskVerdict) => {
    pending = pending ? strongerAsk(pending, verdict) : verdict;
  };
  // The analyser of that time left pattern words out of the write targets (docs/decisions/security-pattern-writes.md).
  const patterns = subcommand.argv.filter((_, index) => subcommand.argKinds?.[index] === 'glob');
  const isPattern = (target: string) =>
    patterns.some((word) => target === word || target.endsWith(`/${word}`));
  for (const target of subcommand.writesTo) {
    if (harmlessWriteTargets.has(target) || isPattern(target)) continue;
    if (
      isDynamicWord(target) ||
      /[*?[]/.test(target) ||
      (target.startsWith('~') && !target.startsWith('~/'))
    ) {
      raise(ask('safety', `it writes to ${target}, which is only known when the command runs`));
      continue;
    }
    const path = resolveFrom(target, subcommand, context.workspace);
    if (isUnresolvable(path)) {
      raise(ask('safety', `it writes to ${target}, and ${path.unresolvable}`));
      continue;
    }
    const deny = findPathRule(context.pathRules.writeDeny, path, 'deny', context.workspace);
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
    ) {
      raise(ask('safety', `it writes to the device ${path.lexical}`));
      continue;
    }
    const askRule = findPathRule(context.pathRules.writeAsk, path, 'ask', context.workspace);
    if (askRule) {
      raise(
        ask('rule', `writing ${path.lexical} matches ${describeRule(askRule)}`, {
          rule: askRule,
          steps: [ruleStep(askRule, 'ask', `Writing ${path.lexical} must be asked about.`)],
        }),
      );
      continue;
    }
    const protectedReason = protectedPathReason(path.lexical) ?? protectedPathReason(path.physical);
    if (protectedReason) {
      raise(ask('safety', `it writes ${path.lexical}, which is protected (${protectedReason})`));
      continue;
    }
    if (!isInWorkspace(path, context.workspace)) {
      raise(ask('workspace', `it writes ${path.lexical}, outside the working directories`));
      continue;
    }
    if (findPathRule(context.pathRules.writeAllow, path, 'allow', context.workspace)) continue;
    if (context.mode === 'acceptEdits' || context.mode === 'auto' || context.mode === 'bypassPermissions')
      continue;
    raise(ask('default', `it writes ${path.lexical}`));
  }
  return pending;
}

/** True when the command writes a file through an output redirect (not to /dev/null and the like). */
function writesThroughRedirect(subcommand: AnalyzedSubcommandLike): boolean {
  return subcommand.redirects.some(
    (redirect) =>
      /^(?:>|>>|>\||&>|&>>|>&)$/.test(redirect.operator) && !harmlessWriteTargets.has(redirect.target),
  );
}

function checkCriticalRemoval(
  subcommand: AnalyzedSubcommandLike,
  context: SubcommandCheckContext,
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
 * `tar`, `cp -r`) would read it. Bare patterns match at any depth, so for them only a scan of their
 * whole anchor directory (or above) counts.
 */
function directoryHoldsDeniedPath(
  path: { lexical: string; physical: string },
  context: SubcommandCheckContext,
): boolean {
  return context.pathRules.readDeny.some((rule) => {
    const prefix = pathRuleLiteralPrefix(rule, context.workspace);
    return [path.lexical, path.physical].some((directory) => isInsideDirectory(prefix, directory));
  });
}

/** A glob argument that could expand to a path some read deny rule covers, or undefined. */
function globReachingDeniedPath(
  subcommand: AnalyzedSubcommandLike,
  context: SubcommandCheckContext,
): string | undefined {
  if (context.pathRules.readDeny.length === 0) return undefined;
  return subcommand.argv.slice(1).find((word, offset) => {
    const kind = subcommand.argKinds?.[offset + 1];
    if (kind !== 'glob' && !(kind === undefined && /[*?[]/.test(word))) return false;
    const literal = word.split(/[*?[]/)[0] ?? '';
    const directory = literal.includes('/') ? literal.slice(0, literal.lastIndexOf('/') + 1) : '.';
    const resolved = resolveFrom(directory, subcommand, context.workspace);
    if (isUnresolvable(resolved)) return true;
    return context.pathRules.readDeny.some((rule) => {
      const prefix = pathRuleLiteralPrefix(rule, context.workspace);
      return [resolved.lexical, resolved.physical].some(
        (dir) => isInsideDirectory(prefix, dir) || isInsideDirectory(dir, prefix),
      );
    });
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
  context: SubcommandCheckContext,
): PermissionRule | undefined {
  if (read.kind === 'names') return context.pathRules.readDeny[0];
  const scope = repositoryScope(cwd, context.workspace);
  return context.pathRules.readDeny.find((rule) => {
    const prefix = pathRuleLiteralPrefix(rule, context.workspace);
    return isInsideDirectory(prefix, scope) || isInsideDirectory(scope, prefix);
  });
}

/** An ask when the command reads files its words do not name and a read deny rule could be dodged. */
function indirectReadAsk(
  subcommand: AnalyzedSubcommandLike,
  context: SubcommandCheckContext,
): AskVerdict | undefined {
  if (context.pathRules.readDeny.length === 0) return undefined;
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
function argumentUnderWriteDeny(
  paths: ReadonlyArray<{ lexical: string; physical: string }>,
  context: SubcommandCheckContext,
): { path: string; rule: PermissionRule } | undefined {
  if (context.pathRules.writeDeny.length === 0) return undefined;
  for (const path of paths) {
    const rule =
      findPathRule(context.pathRules.writeDeny, path, 'deny', context.workspace) ??
      context.pathRules.writeDeny.find((candidate) => {
        const prefix = pathRuleLiteralPrefix(candidate, context.workspace);
        return [path.lexical, path.physical].some((directory) => isInsideDirectory(prefix, directory));
      });
    if (rule) return { path: path.lexical, rule };
  }
  return undefined;
}

/** An ask when the command's arguments may run a command a deny or ask rule covers. */
function embeddedRuleMatch(
  subcommand: AnalyzedSubcommandLike,
  context: SubcommandCheckContext,
): AskVerdict | undefined {
  const rules = [...context.shellRules.deny, ...context.shellRules.ask];
  if (rules.length === 0) return undefined;
  const spellings = embeddedCommandSpellings(subcommand);
  if (spellings.length === 0) return undefined;
  for (const rule of rules) {
    const pattern = compileShellPattern(rule.value.ruleContent ?? '');
    const inner = spellings.find((text) => matchesShellPattern(pattern, text));
    if (inner === undefined) continue;
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
 * The subcommand as the engine judges it: when the directory it runs in was reached through `..`
 * after a symbolic link (`cd link/..`), bash's logical `cd` and the kernel disagree on where that is,
 * so the directory counts as unknown and whatever it reads relative to it is asked about.
 */
function withKnownCwd(subcommand: AnalyzedSubcommandLike, workspace: Workspace): AnalyzedSubcommandLike {
  if (subcommand.cwd === null || subcommand.cwd === workspace.cwd) return subcommand;
  const directory = resolveInWorkspace(subcommand.cwd, workspace);
  return isUnresolvable(directory) ? { ...subcommand, cwd: null } : subcommand;
}

/** What following the links under the directories a command reads adds to what it reads. */
interface LinkReads {
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
function linkTargetsRead(
  subcommand: AnalyzedSubcommandLike,
  readPaths: readonly CanonicalPath[],
  context: SubcommandCheckContext,
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

/** A path for messages: the link and, when it leads elsewhere, its target. */
const describePath = (path: CanonicalPath) =>
  path.lexical === path.physical ? path.lexical : `${path.lexical} (→ ${path.physical})`;

/**
 * Runs the per-subcommand steps: deny rules, path deny rules on what it reads and writes, ask rules,
 * critical removals, write targets, allow rules, acceptEdits file commands, the read-only default.
 * Returns undefined when nothing allowed it (the caller asks).
 */
export function checkSubcommand(
  subcommand: AnalyzedSubcommandLike,
  context: SubcommandCheckContext,
): Verdict | undefined {
  const { workspace } = context;
  subcommand = withKnownCwd(subcommand, workspace);
  const spellings = denySpellings(subcommand);
  const label = subcommandLabel(subcommand);
  const denyRule = context.shellRules.deny.find((rule) => shellRuleMatches(rule, spellings));
  if (denyRule)
    return {
      behavior: 'deny',
      reason: `${label} matches ${describeRule(denyRule)}`,
      rule: denyRule,
      steps: [ruleStep(denyRule, 'deny', `${label} matches this deny rule.`)],
    };
  const embedded = subcommand.readOnly ? undefined : embeddedRuleMatch(subcommand, context);
  if (embedded) return embedded;

  let unknownRead: string | undefined;
  // A path only known when the command runs (`$XDG_CONFIG_HOME/x`, `~other/x`, `$(…)`) may be anywhere.
  let runtimePath: string | undefined;
  // A path whose `..` follows a symbolic link names two files; neither answer can be trusted.
  let ambiguousRead: string | undefined;
  const readPaths: CanonicalPath[] = [];
  for (const candidate of readPathCandidates(subcommand, workspace.home)) {
    if ('unknown' in candidate) {
      unknownRead ??= candidate.unknown;
      runtimePath ??= candidate.unknown;
      continue;
    }
    const path = resolveFrom(candidate.path, subcommand, workspace);
    if (isUnresolvable(path) && path.ambiguous) {
      unknownRead ??= candidate.path;
      if (candidate.primary) ambiguousRead ??= candidate.path;
      continue;
    }
    if (isUnresolvable(path)) {
      if (candidate.primary) {
        unknownRead ??= candidate.path;
        if (subcommand.cwd === null) runtimePath ??= candidate.path;
      }
      continue;
    }
    if (candidate.primary) readPaths.push(path);
    const rule = findPathRule(context.pathRules.readDeny, path, 'deny', workspace);
    if (rule)
      return {
        behavior: 'deny',
        reason: `${label} reads ${path.lexical}, denied by ${describeRule(rule)}`,
        rule,
        steps: [ruleStep(rule, 'deny', `${label} reads ${path.lexical}.`)],
      };
  }
  if (searchesWorkingDirectory(subcommand.argv)) {
    const here = resolveFrom('.', subcommand, workspace);
    if (isUnresolvable(here)) unknownRead ??= 'the directory it searches';
    else readPaths.push(here);
  }
  const linkReads = linkTargetsRead(subcommand, readPaths, context);
  for (const path of linkReads.paths) {
    const rule = findPathRule(context.pathRules.readDeny, path, 'deny', workspace);
    if (rule)
      return {
        behavior: 'deny',
        reason: `${label} follows the symbolic link ${describePath(path)}, denied by ${describeRule(rule)}`,
        rule,
        steps: [ruleStep(rule, 'deny', `${label} follows a link to ${path.physical}.`)],
      };
  }
  readPaths.push(...linkReads.reads);
  if (linkReads.unchecked !== undefined) unknownRead ??= `the links under ${linkReads.unchecked}`;
  const expanded = expansionReads(subcommand, workspace, namesOnlyCommands.has(subcommand.argv[0] ?? ''));
  for (const path of expanded.paths) {
    const rule = findPathRule(context.pathRules.readDeny, path, 'deny', workspace);
    if (rule)
      return {
        behavior: 'deny',
        reason: `${label} reaches the symbolic link ${describePath(path)} through a pattern, denied by ${describeRule(rule)}`,
        rule,
        steps: [ruleStep(rule, 'deny', `${label} reaches a link to ${path.physical}.`)],
      };
  }
  readPaths.push(...expanded.reads);
  if (expanded.unchecked !== undefined) unknownRead ??= expanded.unchecked;
  const globRead = globReachingDeniedPath(subcommand, context);
  if (globRead) unknownRead ??= globRead;
  const coveringDirectory = namesOnlyCommands.has(subcommand.argv[0] ?? '')
    ? undefined
    : readPaths.find((path) => directoryHoldsDeniedPath(path, context));
  if (coveringDirectory)
    unknownRead ??= `${coveringDirectory.lexical} (a directory holding files a deny rule covers)`;
  const writes = checkWrites(subcommand, context);
  if (writes?.behavior === 'deny') return writes;
  const mayWrite = subcommand.readOnly ? undefined : argumentUnderWriteDeny(readPaths, context);
  if (mayWrite)
    return ask(
      'safety',
      `${label} is not read-only and names ${mayWrite.path}, which ${describeRule(mayWrite.rule)} protects from writes`,
      { rule: mayWrite.rule, classifierApprovable: false },
    );
  // A write inside the working directories that only needs approval because nothing allowed it may
  // be allowed by an explicit rule for the command (`Bash(touch *)` covers `touch notes.txt`); a write
  // through a redirect may not: `Bash(echo *)` must not let `echo x > src/app.ts` through.
  const ruleMaySettleWrites =
    writes?.behavior === 'ask' && writes.kind === 'default' && !writesThroughRedirect(subcommand);

  const askRule = context.shellRules.ask.find((rule) => shellRuleMatches(rule, spellings));
  if (askRule)
    return ask('rule', `${label} matches ${describeRule(askRule)}`, {
      rule: askRule,
      steps: [ruleStep(askRule, 'ask', `${label} matches this ask rule.`)],
    });
  const critical = checkCriticalRemoval(subcommand, context);
  if (critical) return critical;
  if (writes && !ruleMaySettleWrites) return writes;
  const indirect = indirectReadAsk(subcommand, context);
  if (indirect) return indirect;
  if (unknownRead !== undefined && context.pathRules.readDeny.length > 0) {
    return ask(
      'safety',
      `${label} reads ${unknownRead}, which cannot be checked against the read deny rules before it runs`,
    );
  }

  // Reading outside the working directories is a workspace question that a command's allow rule does
  // not answer: `Bash(git diff *)` is about git, not about /etc/passwd (`git diff --no-index /etc/passwd
  // x`). It asks after allow rules as writes do, unless a Read or Edit allow rule covers the path.
  const reading = !nonReadingCommands.has(subcommand.argv[0] ?? '');
  const outsideRead = reading
    ? readPaths.find(
        (path) =>
          !harmlessWriteTargets.has(path.lexical) &&
          !isInWorkspace(path, workspace) &&
          !findPathRule(context.pathRules.readAllow ?? [], path, 'allow', workspace),
      )
    : undefined;
  if (outsideRead) {
    const outside = ask(
      'workspace',
      `${label} reads ${outsideRead.lexical}, outside the working directories`,
      {
        suggestions: [suggestRule(subcommand, context.family)],
      },
    );
    return writes?.behavior === 'ask' ? strongerAsk(writes, outside) : outside;
  }

  const envClasses = subcommand.envVars.map((variable) =>
    isHarmlessEnvAssignment(variable.name, variable.value, subcommand.argv[0])
      ? 'safe'
      : context.classifyEnvVar(variable.name),
  );
  const dangerousEnv = envClasses.includes('dangerous');
  const allEnvSafe = envClasses.every((envClass) => envClass === 'safe');
  const planBlocks = context.mode === 'plan' && !subcommand.readOnly;
  if (!dangerousEnv && !planBlocks) {
    const blocker = allowRuleBlocker(subcommand);
    const texts = [
      canonicalTextWithEnv(subcommand),
      ...(allEnvSafe ? [canonicalCommandText(subcommand.argv)] : []),
    ];
    const allowRule = context.shellRules.allow.find((rule) => {
      const pattern = compileShellPattern(rule.value.ruleContent ?? '');
      if (blocker !== undefined && pattern.kind !== 'exact') return false;
      return texts.some((text) => matchesShellPattern(pattern, text));
    });
    // A path only known when it runs (`~other/x`) may be anywhere: an allow rule does not cover it.
    if (allowRule && reading && runtimePath !== undefined)
      return ask(
        'workspace',
        `${label} reads ${readableWord(runtimePath)}, which is only known when it runs`,
        {
          suggestions: [suggestRule(subcommand, context.family)],
        },
      );
    if (allowRule)
      return {
        behavior: 'allow',
        reason: `${label} matches ${describeRule(allowRule)}`,
        rule: allowRule,
        steps: [ruleStep(allowRule, 'allow', `${label} matches this allow rule.`)],
      };
    const program = subcommand.argv[0] ?? '';
    if (
      (context.mode === 'acceptEdits' || context.mode === 'auto') &&
      allEnvSafe &&
      acceptEditsCommands.has(program) &&
      blocker === undefined &&
      runtimePath === undefined &&
      ambiguousRead === undefined &&
      linkReads.unchecked === undefined &&
      readPaths.every(
        (path) =>
          isInWorkspace(path, workspace) &&
          !protectedPathReason(path.lexical) &&
          !protectedPathReason(path.physical),
      )
    ) {
      return {
        behavior: 'allow',
        reason: `${label} only changes files inside the working directories (${context.mode})`,
        steps: [
          {
            stage: 'mode',
            outcome: 'allow',
            detail: `${context.mode} allows ${program} inside the working directories.`,
          },
        ],
      };
    }
  }
  if (writes) return writes;
  if (subcommand.readOnly && allEnvSafe) {
    const reading = !nonReadingCommands.has(subcommand.argv[0] ?? '');
    const reads = reading ? readPaths : inputSourcePaths(subcommand, workspace);
    if (!reading && reads.some(isUnresolvable))
      return ask('workspace', `${label} takes its input from a file only known when it runs`, {
        suggestions: [suggestRule(subcommand, context.family)],
      });
    if (reading && subcommand.cwd === null)
      return ask('workspace', `${label} runs in a directory only known when it runs`, {
        suggestions: [suggestRule(subcommand, context.family)],
      });
    const hidden = subcommand.indirectReads?.find((read) => read.outside);
    if (hidden)
      return ask(
        'workspace',
        `${label} reads ${hidden.what}, which may lie outside the working directories; name the files in the command itself`,
        {
          suggestions: [suggestRule(subcommand, context.family)],
        },
      );
    if (reading && ambiguousRead !== undefined)
      return ask(
        'safety',
        `${label} reads ${ambiguousRead}, where \`..\` follows a symbolic link, so the kernel and a logical \`cd\` would read different files; spell the path without \`..\` after a link`,
        { classifierApprovable: false },
      );
    if (reading && expanded.unchecked !== undefined)
      return ask(
        'workspace',
        `${label} reads ${expanded.unchecked}, so where the names lead cannot be checked; name the files in the command itself`,
        { suggestions: [suggestRule(subcommand, context.family)] },
      );
    if (reading && linkReads.unchecked !== undefined)
      return ask(
        'workspace',
        `${label} follows symbolic links under ${linkReads.unchecked}, which holds too many entries to check where they lead; search a smaller directory or drop the option that follows links`,
        { suggestions: [suggestRule(subcommand, context.family)] },
      );
    if (reading && runtimePath !== undefined)
      return ask(
        'workspace',
        `${label} reads ${readableWord(runtimePath)}, which is only known when it runs`,
        {
          suggestions: [suggestRule(subcommand, context.family)],
        },
      );
    const outside = reads.find(
      (path): path is CanonicalPath =>
        !isUnresolvable(path) && !isInWorkspace(path, workspace) && !harmlessReadSources.has(path.physical),
    );
    if (outside)
      return ask('workspace', `${label} reads ${describePath(outside)}, outside the working directories`, {
        suggestions: [suggestRule(subcommand, context.family)],
      });
    return {
      behavior: 'allow',
      reason: `${label} is read-only`,
      steps: [
        {
          stage: 'analysis',
          outcome: 'allow',
          detail: `${label} is read-only inside the working directories.`,
        },
      ],
    };
  }
  return undefined;
}
