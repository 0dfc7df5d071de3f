import { LRUCache } from 'lru-cache';
import { errorMessage, type PermissionTarget } from '../core/index.ts';
import { denySpellings } from './decide/shell/command-text.ts';
import {
  type AnalyzedSubcommandLike,
  type CommandAnalysisLike,
  isDynamicWord,
  type ShellAnalyzer,
} from './decide/shell/shell-contract.ts';
import { isUnresolvable, type RealpathFn } from './paths/canonical-path.ts';
import { findPathRule, parameterRuleMatches } from './decide/rule-match.ts';
import { createWorkspace, resolveInWorkspace } from './decide/workspace.ts';
import { compileDomainPattern, domainMatches, hostOfUrl } from './rules/domain-pattern.ts';
import { parseRule } from './rules/parse-rule.ts';
import type { PermissionRule, RuleValue } from './rules/rule-types.ts';
import { compileShellPattern, matchesShellPattern, type ShellPattern } from './rules/shell-pattern.ts';
import { toolNameMatches } from './rules/tool-names.ts';

/**
 * Hook `if` conditions: one permission-rule pattern (`Bash(git *)`, `Edit(/src/**)`,
 * `WebFetch(domain:example.com)`) tested against one tool call with the permission engine's own
 * matchers. A condition is a pre-filter for a hook, so whatever cannot be decided counts as a match:
 * hooks are usually guards, and running a guard too often is safer than skipping it.
 */

/** The tool call a condition is tested against. */
export interface RuleConditionCall {
  toolName: string;
  aliases?: readonly string[];
  input: Record<string, unknown>;
  /** What the tool says the call touches (its `permissionTarget`). */
  target: PermissionTarget;
  /** Where relative paths and `./x` patterns start. */
  cwd: string;
  home: string;
  /** Where `/x` patterns start (the project root); default `cwd`. */
  projectRoot?: string;
}

/** What a condition needs besides the call. */
export interface RuleConditionOptions {
  /** Splits shell commands into subcommands; without it a shell pattern cannot be decided. */
  shell?: ShellAnalyzer;
  /** How existing paths are resolved (tests may pass a lexical stand-in). */
  realpath?: RealpathFn;
}

/** Whether a condition holds and why; `decided: false` means it could not be evaluated and holds. */
export interface RuleConditionResult {
  matches: boolean;
  decided: boolean;
  reason: string;
}

const undecided = (reason: string): RuleConditionResult => ({ matches: true, decided: false, reason });
const decided = (matches: boolean, reason: string): RuleConditionResult => ({
  matches,
  decided: true,
  reason,
});

// Hook conditions are checked on every tool call; parse each pattern once.
const parsedPatterns = new LRUCache<string, { value: RuleValue } | { invalid: string }>({ max: 1024 });

function parsePattern(pattern: string): { value: RuleValue } | { invalid: string } {
  let parsed = parsedPatterns.get(pattern);
  if (!parsed) {
    try {
      parsed = { value: parseRule(pattern) };
    } catch (error) {
      parsed = { invalid: errorMessage(error) };
    }
    parsedPatterns.set(pattern, parsed);
  }
  return parsed;
}

/**
 * Whether the rule speaks about this tool: by name, alias, MCP server or tool-name glob; and, as for
 * permission rules, `Edit(path)` covers every tool that writes a path and `Read(path)` every tool
 * that reads one (Write, MultiEdit, NotebookEdit; Glob, Grep).
 */
function speaksAboutTool(value: RuleValue, call: RuleConditionCall): boolean {
  if (toolNameMatches(value.toolName, call.toolName, call.aliases ?? [])) return true;
  if (value.ruleContent === undefined || call.target.kind !== 'path') return false;
  if (value.toolName === 'Edit') return call.target.access === 'write';
  if (value.toolName === 'Read') return call.target.access === 'read';
  return false;
}

/**
 * True when the pattern says something beyond the program's name (`git push *`, `rm -rf *`), so a
 * word only known at run time could decide whether it matches.
 */
function namesArguments(pattern: ShellPattern): boolean {
  const text = pattern.kind === 'prefix' ? (pattern.prefix ?? '') : pattern.source;
  return /\S\s+\S/.test(text.trim()) || pattern.kind === 'wildcard';
}

function analyze(shell: ShellAnalyzer, command: string, call: RuleConditionCall): CommandAnalysisLike {
  try {
    return shell.analyzeCommand(command, { cwd: call.cwd, home: call.home });
  } catch (error) {
    return { kind: 'too-complex', reason: `the shell analyser failed (${errorMessage(error)})` };
  }
}

const hasRuntimeWords = (subcommand: AnalyzedSubcommandLike): boolean =>
  subcommand.argKinds?.includes('dynamic') === true ||
  [...subcommand.argv, ...subcommand.rawArgv].some(isDynamicWord);

function commandCondition(
  content: string,
  target: Extract<PermissionTarget, { kind: 'command' }>,
  call: RuleConditionCall,
  options: RuleConditionOptions,
): RuleConditionResult {
  const pattern = compileShellPattern(content);
  const whole = target.command.trim();
  if (target.shell !== 'bash' || !options.shell) {
    if (matchesShellPattern(pattern, whole)) return decided(true, 'the whole command matches');
    return undecided(`the ${target.shell} command cannot be split into subcommands here`);
  }
  const analysis = analyze(options.shell, target.command, call);
  if (analysis.kind === 'too-complex') {
    return undecided(`the command is too complex to check (${analysis.reason})`);
  }
  const matching = analysis.subcommands.find((subcommand) =>
    denySpellings(subcommand).some((spelling) => matchesShellPattern(pattern, spelling)),
  );
  if (matching) return decided(true, `the subcommand \`${matching.text.trim()}\` matches`);
  if (analysis.subcommands.length === 0) {
    return decided(
      matchesShellPattern(pattern, whole),
      'the command has no subcommands; its text was matched',
    );
  }
  // `$(...)`, backticks and variables are only known when the command runs.
  const unknown = analysis.subcommands.find(
    (subcommand) =>
      hasRuntimeWords(subcommand) && (namesArguments(pattern) || isDynamicWord(subcommand.argv[0] ?? '')),
  );
  if (unknown) {
    return undecided(`\`${unknown.text.trim()}\` holds words only known when it runs`);
  }
  return decided(false, 'no subcommand matches');
}

function pathCondition(
  value: RuleValue & { ruleContent: string },
  target: Extract<PermissionTarget, { kind: 'path' }>,
  call: RuleConditionCall,
  options: RuleConditionOptions,
): RuleConditionResult {
  if (value.ruleContent.startsWith('!')) return undecided('negated path patterns are not supported');
  const projectRoot = call.projectRoot ?? call.cwd;
  const workspace = createWorkspace({
    cwd: call.cwd,
    projectRoot,
    home: call.home,
    additionalDirectories: [],
    ...(options.realpath ? { realpath: options.realpath } : {}),
  });
  const path = resolveInWorkspace(target.path, workspace);
  if (isUnresolvable(path)) return undecided(`the path cannot be checked (${path.unresolvable})`);
  const rule: PermissionRule = {
    source: 'session',
    // Deny anchoring: every spelling of the path, any depth for bare patterns, directories that
    // hold a match included — a guard should err towards running.
    behavior: 'deny',
    value,
    text: value.ruleContent,
    root: projectRoot,
    origin: 'hook condition',
  };
  const found = findPathRule([rule], path, 'deny', workspace);
  return decided(found !== undefined, found ? `${path.lexical} matches` : `${path.lexical} does not match`);
}

function urlCondition(content: string, url: string): RuleConditionResult {
  if (!content.startsWith('domain:')) return undecided('only domain: patterns can be checked for URLs');
  const host = hostOfUrl(url);
  if ('invalid' in host) return undecided(`the URL cannot be checked: ${host.invalid}`);
  const matches = domainMatches(compileDomainPattern(content.slice('domain:'.length)), host);
  return decided(matches, matches ? `host ${host.host} matches` : `host ${host.host} does not match`);
}

/**
 * Evaluates a hook `if` condition against one tool call. The rule's tool must be the call's tool
 * (names, aliases, MCP servers and globs as in permission rules; `Edit`/`Read` paths for every
 * writing/reading file tool). Shell patterns hold when ANY subcommand of the analysed command
 * matches (wrappers, env prefixes and `$()` bodies included); path patterns use deny-rule anchoring;
 * `domain:` patterns compare parsed hosts. Unparseable patterns and commands count as matches.
 */
export function evaluateRuleCondition(
  pattern: string,
  call: RuleConditionCall,
  options: RuleConditionOptions = {},
): RuleConditionResult {
  const parsed = parsePattern(pattern);
  if ('invalid' in parsed) return undecided(`the pattern does not parse: ${parsed.invalid}`);
  const { value } = parsed;
  if (!speaksAboutTool(value, call)) return decided(false, `the pattern is not about ${call.toolName}`);
  const content = value.ruleContent;
  if (content === undefined) return decided(true, `the pattern covers every ${call.toolName} call`);
  const parameter = parameterRuleMatches({ value } as PermissionRule, call.input);
  if (parameter !== undefined) return decided(parameter, 'the parameter pattern was compared');
  const { target } = call;
  switch (target.kind) {
    case 'command':
      return commandCondition(content, target, call, options);
    case 'path':
      return pathCondition({ ...value, ruleContent: content }, target, call, options);
    case 'url':
      return urlCondition(content, target.url);
    case 'agent':
    case 'skill': {
      const name = target.kind === 'agent' ? target.agentType : target.skill;
      const matches = matchesShellPattern(compileShellPattern(content), name);
      return decided(matches, matches ? `${name} matches` : `${name} does not match`);
    }
    case 'none':
      return undecided(`${call.toolName} declares nothing a pattern's content could be matched against`);
  }
}

/** {@link evaluateRuleCondition}, answering only whether the hook should run. */
export function matchesRuleCondition(
  pattern: string,
  call: RuleConditionCall,
  options: RuleConditionOptions = {},
): boolean {
  return evaluateRuleCondition(pattern, call, options).matches;
}
