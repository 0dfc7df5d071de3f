import { protectedPathReason } from '../../paths/protected-paths.ts';
import type { DecisionTable } from '../decision-table.ts';
import { describeRule, ruleStep, strongerAsk, type Verdict } from '../verdict.ts';
import { isInWorkspace } from '../workspace.ts';
import { isUnresolvable, sharedFileReason } from '../../paths/canonical-path.ts';
import {
  expandHome,
  harmlessReadSources,
  harmlessWriteTargets,
  inputSourceWords,
  namesOnlyCommands,
  patternDirectories,
} from './command-paths.ts';
import { commandTextNamesCoveredPath } from './command-text-paths.ts';
import { unknownGitCommand } from './git-command-names.ts';
import { otherUserWrapper } from './risky-arguments.ts';
import { writeTargetsKnown } from '../../../shell/index.ts';
import {
  acceptEditsCommands,
  argumentUnderWriteDeny,
  ask,
  checkCriticalRemoval,
  commandKnownOnlyAtRunTime,
  describePath,
  directoryHoldsCoveredPath,
  embeddedRuleMatch,
  globReachingDeniedPath,
  indirectReadAsk,
  resolveFrom,
  suggestRule,
} from './subcommand-checks.ts';
import type { SubcommandFacts } from './subcommand-facts.ts';
import { protectedNameInWords } from './protected-names.ts';
import { patchWrites } from './patch-targets.ts';
import { archiveWrites } from './archive-members.ts';
import { gitConfigWrite } from './git-config-writes.ts';
import { writeJudgedPaths } from './implicit-targets.ts';
import { findReachesProtectedEntry } from './find-actions.ts';
import { readableWord } from './shell-contract.ts';

type SubcommandStep = (facts: SubcommandFacts) => Verdict | undefined;

const shellDenyRule: SubcommandStep = (facts) => {
  const { context, label } = facts;
  const rule = context.shellRules.deny.find(facts.spellings);
  if (!rule) return undefined;
  return {
    behavior: 'deny',
    reason: `${label} matches ${describeRule(rule)}`,
    rule,
    steps: [ruleStep(rule, 'deny', `${label} matches this deny rule.`)],
  };
};

const embeddedCommand: SubcommandStep = ({ subcommand, context }) =>
  subcommand.readOnly ? undefined : embeddedRuleMatch(subcommand, context);

const commandOnlyKnownAtRunTime: SubcommandStep = ({ subcommand, context }) =>
  subcommand.readOnly ? undefined : commandKnownOnlyAtRunTime(subcommand, context);

/**
 * A git command word that is not git's own (an alias, an autocorrected typo, a `git-NAME` program)
 * may run any git command, so while a rule names git the engine cannot tell whether it applies.
 */
const gitNameUnderRule: SubcommandStep = ({ subcommand, context }) => {
  const name = unknownGitCommand(subcommand.argv);
  if (name === undefined) return undefined;
  const { deny, ask: askRules } = context.shellRules;
  if (!deny.mayMatchFirstWord('git') && !askRules.mayMatchFirstWord('git')) return undefined;
  return ask(
    'safety',
    `git ${name} is not a git command: an alias or a git-${name} program may run a git command a rule covers`,
    { classifierApprovable: false },
  );
};

const readDenied: SubcommandStep = (facts) => facts.reads().deny;

const commandTextNamesPath: SubcommandStep = ({ subcommand, context, label }) =>
  commandTextNamesCoveredPath(subcommand, context, label);

const writeDenied: SubcommandStep = (facts) => {
  const writes = facts.writes();
  return writes?.behavior === 'deny' ? writes : undefined;
};

const namesWriteDeniedPath: SubcommandStep = (facts) => {
  if (facts.subcommand.readOnly) return undefined;
  const { context, subcommand } = facts;
  const paths = writeJudgedPaths(
    facts.reads().readPaths,
    subcommand,
    context,
    context.pathRules.writeDeny.size > 0,
  );
  const found = argumentUnderWriteDeny(paths, context);
  if (!found) return undefined;
  return ask(
    'safety',
    `${facts.label} is not read-only and names ${found.path}, which ${describeRule(found.rule)} protects from writes`,
    { rule: found.rule, classifierApprovable: false },
  );
};

/** The same for Edit ask rules: a command that writes names a path one covers, or a directory holding one. */
const namesWriteAskPath: SubcommandStep = (facts) => {
  if (facts.subcommand.readOnly) return undefined;
  const { context, subcommand } = facts;
  const writeAsk = context.pathRules.writeAsk;
  const paths = writeJudgedPaths(facts.reads().readPaths, subcommand, context, writeAsk.size > 0);
  const found = argumentUnderWriteDeny(paths, context, writeAsk);
  if (!found) return undefined;
  return ask(
    'rule',
    `${facts.label} is not read-only and names ${found.path}, which ${describeRule(found.rule)} covers`,
    {
      rule: found.rule,
      steps: [ruleStep(found.rule, 'ask', `${facts.label} may change ${found.path}.`)],
    },
  );
};

/**
 * A command that is not read-only names a protected path: `git restore .claude/…`, `git config
 * --file .gitmodules`, `mkfifo .envrc`, `ln -s .claude c`, `prettier --write .vscode/settings.json`,
 * `gcc -o.git/hooks/pre-commit`, `node g.js --out=.envrc`. Only a few programs' write targets are
 * known; for the rest, naming a protected path is what can write it (or alias it for a later write),
 * so it asks as a write there would, whatever the rules or the mode, and the classifier does not
 * settle it. `git add` and `git commit` only record what is already there. What counts as naming is
 * {@link protectedNameInWords}: every word and every part of a word; the parts inside words are
 * followed through links when a rule or the mode may let a program whose outputs are not modelled run.
 * A patch applier or an archive extraction also writes what the file it reads names.
 */
const namesProtectedPath: SubcommandStep = (facts) => {
  const { subcommand, context } = facts;
  if (subcommand.readOnly) return undefined;
  const { argv } = subcommand;
  if (recordsOnly(argv)) return undefined;
  const program = argv[0] ?? '';
  const physical =
    !writeTargetsKnown(program.slice(program.lastIndexOf('/') + 1)) &&
    (context.mode === 'bypassPermissions' || (facts.allowMaySpeak() && facts.allowRule() !== undefined));
  const named = protectedNameInWords(subcommand, facts.reads().readPaths, context.workspace, physical);
  if (named)
    return ask(
      'safety',
      `${facts.label} is not read-only and names ${named.piece}, which is protected (${named.reason})`,
      { classifierApprovable: false },
    );
  return writesNamedByContent(facts) ?? findActsOnProtectedEntry(facts);
};

/** A find whose expression changes files and may reach a protected entry under its starting points. */
function findActsOnProtectedEntry({ subcommand, label }: SubcommandFacts): Verdict | undefined {
  const reached = findReachesProtectedEntry(subcommand);
  return reached
    ? ask('safety', `${label} may change ${reached.path}, which is protected (${reached.reason})`, {
        classifierApprovable: false,
      })
    : undefined;
}

/**
 * What a patch applier writes (`git apply x.patch` creating .envrc), an extraction unpacks
 * (`tar -xf x.tar` holding .envrc), read from the patch or archive, or what a git command sets in
 * git's own configuration (`git config core.hooksPath h`); each returns nothing at once for other
 * programs.
 */
function writesNamedByContent({ subcommand, context, label }: SubcommandFacts): Verdict | undefined {
  const patched = patchWrites(subcommand, context.workspace);
  if (patched?.kind === 'protected')
    return ask(
      'safety',
      `${label} applies a patch that writes ${patched.path}, which is protected (${patched.reason})`,
      { classifierApprovable: false },
    );
  if (patched?.kind === 'unknown')
    return ask('safety', `${label} applies a patch whose files are not known before it runs: ${patched.why}`);
  const extracted = archiveWrites(subcommand, context.workspace);
  if (extracted)
    return ask('safety', `${label} extracts ${extracted.path}, which is protected (${extracted.reason})`, {
      classifierApprovable: false,
    });
  const configured = gitConfigWrite(subcommand.argv);
  return configured
    ? ask('safety', `${label} changes git's configuration, which is protected (${configured.change})`, {
        classifierApprovable: false,
      })
    : undefined;
}

/** `git add …` and `git commit …`: they record files in the repository and change none of them. */
export function recordsOnly(argv: readonly string[]): boolean {
  if (argv[0] !== 'git') return false;
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (word === '-C' || word === '-c') {
      index++;
      continue;
    }
    if (word.startsWith('-')) continue;
    return word === 'add' || word === 'commit';
  }
  return false;
}

const shellAskRule: SubcommandStep = (facts) => {
  const { context, label } = facts;
  const rule = context.shellRules.ask.find(facts.spellings);
  if (!rule) return undefined;
  return ask('rule', `${label} matches ${describeRule(rule)}`, {
    rule,
    steps: [ruleStep(rule, 'ask', `${label} matches this ask rule.`)],
  });
};

/**
 * A Read ask rule on what it reads: a file it names, a directory holding such a file that it reads
 * recursively, or files it reads without naming them (which cannot be checked against the rule).
 */
const readAskRule: SubcommandStep = (facts) => {
  const readAsk = facts.context.pathRules.readAsk;
  if (readAsk === undefined || readAsk.size === 0 || !facts.reading) return undefined;
  const { readPaths, unknownRead } = facts.reads();
  const namesOnly = namesOnlyCommands.has(facts.subcommand.argv[0] ?? '');
  for (const path of readPaths) {
    const rule = readAsk.find(path);
    if (rule)
      return ask('rule', `${facts.label} reads ${path.lexical}, which matches ${describeRule(rule)}`, {
        rule,
        steps: [ruleStep(rule, 'ask', `Reading ${path.lexical} must be asked about.`)],
      });
    if (!namesOnly && directoryHoldsCoveredPath(path, readAsk, facts.context.workspace))
      return ask('rule', `${facts.label} reads ${path.lexical}, which holds files a Read ask rule covers`);
  }
  const hidden =
    unknownRead ??
    globReachingDeniedPath(facts.subcommand, facts.context, readAsk) ??
    (facts.subcommand.indirectReads?.length ? 'files its words do not name' : undefined);
  if (hidden === undefined) return undefined;
  return ask(
    'safety',
    `${facts.label} reads ${hidden}, which cannot be checked against the Read ask rules before it runs`,
  );
};

const criticalRemoval: SubcommandStep = ({ subcommand, context }) =>
  checkCriticalRemoval(subcommand, context);

const writesNoRuleMaySettle: SubcommandStep = (facts) =>
  facts.ruleMaySettleWrites() ? undefined : facts.writes();

const indirectRead: SubcommandStep = ({ subcommand, context }) => indirectReadAsk(subcommand, context);

const uncheckableRead: SubcommandStep = (facts) => {
  const { unknownRead } = facts.reads();
  if (unknownRead === undefined || facts.context.pathRules.readDeny.size === 0) return undefined;
  return ask(
    'safety',
    `${facts.label} reads ${unknownRead}, which cannot be checked against the read deny rules before it runs`,
  );
};

/**
 * Reading outside the working directories is a workspace question that a command's allow rule does
 * not answer: `Bash(git diff *)` is about git, not about /etc/passwd (`git diff --no-index /etc/passwd
 * x`). It asks before allow rules, unless a Read or Edit allow rule covers the path.
 */
const readsOutsideBeforeAllowRules: SubcommandStep = (facts) => {
  if (!facts.reading) return undefined;
  const { workspace, pathRules } = facts.context;
  const outside = facts
    .reads()
    .readPaths.find(
      (path) =>
        !harmlessWriteTargets.has(path.lexical) &&
        !harmlessReadSources.has(path.physical) &&
        !isInWorkspace(path, workspace) &&
        !pathRules.readAllow?.find(path),
    );
  if (!outside) return undefined;
  const verdict = ask(
    'workspace',
    `${facts.label} reads ${outside.lexical}, outside the working directories`,
    {
      suggestions: [suggestRule(facts.subcommand, facts.context.family)],
    },
  );
  const writes = facts.writes();
  return writes?.behavior === 'ask' ? strongerAsk(writes, verdict) : verdict;
};

/**
 * The shell lists a directory to expand a pattern for a program that opens nothing itself:
 * `echo ~/.ssh/*` prints what `ls ~/.ssh` would (class pattern-listing,
 * docs/decisions/security-pattern-listing.md).
 */
const patternListsOutside: SubcommandStep = (facts) => {
  if (facts.reading) return undefined;
  const { workspace } = facts.context;
  for (const directory of patternDirectories(facts.subcommand)) {
    const expanded = expandHome(directory, workspace.home, false);
    const path = expanded === undefined ? undefined : resolveFrom(expanded, facts.subcommand, workspace);
    if (path === undefined || isUnresolvable(path))
      return workspaceAsk(
        facts,
        `expands a pattern in ${readableWord(directory)}, a directory only known when it runs`,
      );
    if (!isInWorkspace(path, workspace))
      return workspaceAsk(
        facts,
        `expands a pattern in ${describePath(path)}, outside the working directories`,
      );
  }
  return undefined;
};

/** A path only known when it runs (`~other/x`) may be anywhere: an allow rule does not cover it. */
const allowRuleMissesRuntimePath: SubcommandStep = (facts) => {
  const { runtimePath } = facts.reads();
  if (!facts.allowMaySpeak() || !facts.allowRule() || !facts.reading || runtimePath === undefined)
    return undefined;
  return workspaceAsk(facts, `reads ${readableWord(runtimePath)}, which is only known when it runs`);
};

/**
 * A program that opens nothing itself (`echo`) still has its input redirects and an `xargs -a` file
 * opened for it, and xargs turns them into its words: `xargs echo < ~/.ssh/id_rsa` prints the key
 * (class input-source, docs/decisions/security-input-source.md).
 */
const inputFromOutside: SubcommandStep = (facts) => {
  if (facts.reading) return undefined;
  const { workspace } = facts.context;
  for (const word of inputSourceWords(facts.subcommand)) {
    // `~/x` and `$HOME/x` as bash expands them; `$X`, `~other/x` and `$(…)` are only known when it runs.
    const expanded = expandHome(word, workspace.home, false);
    const path = expanded === undefined ? undefined : resolveFrom(expanded, facts.subcommand, workspace);
    if (path === undefined || isUnresolvable(path))
      return workspaceAsk(
        facts,
        `takes its input from ${readableWord(word)}, a file only known when it runs`,
      );
    if (!isInWorkspace(path, workspace) && !harmlessReadSources.has(path.physical))
      return workspaceAsk(facts, `reads ${describePath(path)}, outside the working directories`);
  }
  return undefined;
};

const shellAllowRule: SubcommandStep = (facts) => {
  const rule = facts.allowMaySpeak() ? facts.allowRule() : undefined;
  if (!rule) return undefined;
  return {
    behavior: 'allow',
    reason: `${facts.label} matches ${describeRule(rule)}`,
    rule,
    steps: [ruleStep(rule, 'allow', `${facts.label} matches this allow rule.`)],
  };
};

/** acceptEdits and auto let file commands (mkdir, touch, rm, mv, cp, sed) change the working directories. */
const acceptEditsFileCommand: SubcommandStep = (facts) => {
  const { context, subcommand } = facts;
  const program = subcommand.argv[0] ?? '';
  if (context.mode !== 'acceptEdits' && context.mode !== 'auto') return undefined;
  if (!facts.allowMaySpeak() || !facts.env().allSafe || !acceptEditsCommands.has(program)) return undefined;
  // `sudo rm x` changes files as another user: not the edit the mode approves in advance.
  if (otherUserWrapper(subcommand) !== undefined) return undefined;
  const reads = facts.reads();
  const certain =
    facts.blocker() === undefined &&
    reads.runtimePath === undefined &&
    reads.ambiguousRead === undefined &&
    reads.linksUnchecked === undefined;
  const inside = (path: { lexical: string; physical: string }) =>
    isInWorkspace(path, context.workspace) &&
    !protectedPathReason(path.lexical) &&
    !protectedPathReason(path.physical);
  if (!certain || !reads.readPaths.every(inside)) return undefined;
  return {
    behavior: 'allow',
    reason: `${facts.label} only changes files inside the working directories (${context.mode})`,
    steps: [
      {
        stage: 'mode',
        outcome: 'allow',
        detail: `${context.mode} allows ${program} inside the working directories.`,
      },
    ],
  };
};

const remainingWrites: SubcommandStep = (facts) => facts.writes();

/** The read-only default speaks only for read-only commands whose every variable is harmless. */
const readOnly =
  (step: SubcommandStep): SubcommandStep =>
  (facts) =>
    facts.subcommand.readOnly && facts.env().allSafe ? step(facts) : undefined;

/** A reading command's workspace ask, with the rule that would allow it next time. */
const workspaceAsk = (facts: SubcommandFacts, what: string) =>
  ask('workspace', `${facts.label} ${what}`, {
    suggestions: [suggestRule(facts.subcommand, facts.context.family)],
  });

const runsInUnknownDirectory: SubcommandStep = (facts) =>
  facts.reading && facts.subcommand.cwd === null
    ? workspaceAsk(facts, 'runs in a directory only known when it runs')
    : undefined;

/**
 * Files a command opens without naming them (awk's ARGV, `wc --files0-from`, `file -f`, `xargs`) may
 * lie anywhere, and, like a named read outside, that is not what a command's allow rule answers:
 * `Bash(awk *)` is about awk, not about `awk 'BEGIN{ARGV[1]="/home/u/.ssh/id_rsa";ARGC=2}1'`. So it
 * asks before allow rules as well as for read-only commands.
 */
const hiddenRead: SubcommandStep = (facts) => {
  const hidden = facts.subcommand.indirectReads?.find((read) => read.outside);
  return hidden
    ? workspaceAsk(
        facts,
        `reads ${hidden.what}, which may lie outside the working directories; name the files in the command itself`,
      )
    : undefined;
};

const ambiguousRead: SubcommandStep = (facts) => {
  const { ambiguousRead: path, ambiguousReason } = facts.reads();
  if (!facts.reading || path === undefined) return undefined;
  if (ambiguousReason === sharedFileReason)
    return ask('safety', `${facts.label} reads ${path}: ${sharedFileReason}`, {
      classifierApprovable: false,
    });
  return ask(
    'safety',
    `${facts.label} reads ${path}, where \`..\` follows a symbolic link, so the kernel and a logical \`cd\` would read different files; spell the path without \`..\` after a link`,
    { classifierApprovable: false },
  );
};

const uncheckedPattern: SubcommandStep = (facts) => {
  const { expansionUnchecked } = facts.reads();
  if (!facts.reading || expansionUnchecked === undefined) return undefined;
  return workspaceAsk(
    facts,
    `reads ${expansionUnchecked}, so where the names lead cannot be checked; name the files in the command itself`,
  );
};

const uncheckedLinks: SubcommandStep = (facts) => {
  const { linksUnchecked } = facts.reads();
  if (!facts.reading || linksUnchecked === undefined) return undefined;
  return workspaceAsk(
    facts,
    `follows symbolic links under ${linksUnchecked}, which holds too many entries to check where they lead; search a smaller directory or drop the option that follows links`,
  );
};

const runtimeRead: SubcommandStep = (facts) => {
  const { runtimePath } = facts.reads();
  if (!facts.reading || runtimePath === undefined) return undefined;
  return workspaceAsk(facts, `reads ${readableWord(runtimePath)}, which is only known when it runs`);
};

const readsOutside: SubcommandStep = (facts) => {
  if (!facts.reading) return undefined;
  const outside = facts
    .reads()
    .readPaths.find(
      (path) => !isInWorkspace(path, facts.context.workspace) && !harmlessReadSources.has(path.physical),
    );
  return outside
    ? workspaceAsk(facts, `reads ${describePath(outside)}, outside the working directories`)
    : undefined;
};

const readOnlyInside: SubcommandStep = ({ label }) => ({
  behavior: 'allow',
  reason: `${label} is read-only`,
  steps: [
    { stage: 'analysis', outcome: 'allow', detail: `${label} is read-only inside the working directories.` },
  ],
});

/**
 * The order one subcommand is decided in, strongest first; the first step with an opinion decides,
 * and when none has one the caller asks. Deny rules and denied paths beat every ask; ask rules and
 * safety checks beat allow rules; allow rules and acceptEdits beat the remaining write asks; the
 * read-only default comes last, after every reason a read could not be vouched for.
 */
export const subcommandDecisionTable: DecisionTable<SubcommandFacts, Verdict> = [
  { name: 'a deny rule on the command', check: shellDenyRule },
  { name: 'an argument runs a command a deny or ask rule covers', check: embeddedCommand },
  { name: 'a read deny rule on what it reads (named, through links, through patterns)', check: readDenied },
  { name: 'a write deny rule on what it writes', check: writeDenied },
  { name: 'a command that writes names a write-denied path', check: namesWriteDeniedPath },
  { name: "a git command name that is not git's own, while a rule names git", check: gitNameUnderRule },
  {
    name: 'words xargs adds, or code that starts programs, while a deny or ask rule is in force',
    check: commandOnlyKnownAtRunTime,
  },
  {
    name: 'command text in a word names a path a deny or ask rule or the protected list covers',
    check: commandTextNamesPath,
  },
  { name: 'an ask rule on the command', check: shellAskRule },
  { name: 'a Read ask rule on what it reads', check: readAskRule },
  { name: 'a command that writes names a path an Edit ask rule covers', check: namesWriteAskPath },
  { name: 'a critical removal', check: criticalRemoval },
  { name: 'writes no allow rule may settle', check: writesNoRuleMaySettle },
  { name: 'a command that is not read-only names a protected path', check: namesProtectedPath },
  { name: 'an indirect read could dodge a read deny rule', check: indirectRead },
  { name: 'a read that cannot be checked against read deny rules', check: uncheckableRead },
  { name: 'a read outside the working directories', check: readsOutsideBeforeAllowRules },
  { name: 'reads files its words do not name, which may lie outside', check: hiddenRead },
  { name: 'input from outside for a program that opens nothing itself', check: inputFromOutside },
  {
    name: 'a pattern the shell expands outside for a program that opens nothing itself',
    check: patternListsOutside,
  },
  { name: 'an allow rule, but a path only known at run time', check: allowRuleMissesRuntimePath },
  { name: 'an allow rule on the command', check: shellAllowRule },
  { name: 'acceptEdits/auto: a file command inside the working directories', check: acceptEditsFileCommand },
  { name: 'writes nothing allowed', check: remainingWrites },
  { name: 'read-only: runs in an unknown directory', check: readOnly(runsInUnknownDirectory) },
  { name: 'read-only: `..` after a symbolic link', check: readOnly(ambiguousRead) },
  { name: 'read-only: a pattern whose matches were not all checked', check: readOnly(uncheckedPattern) },
  { name: 'read-only: links under a directory too big to check', check: readOnly(uncheckedLinks) },
  { name: 'read-only: a path only known at run time', check: readOnly(runtimeRead) },
  { name: 'read-only: a read outside the working directories', check: readOnly(readsOutside) },
  { name: 'read-only inside the working directories', check: readOnly(readOnlyInside) },
];
