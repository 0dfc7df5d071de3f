import type { PermissionMode } from '../../../core/index.ts';
import { indexPathRules, type PathLookup, PathRuleIndex } from '../../rules/path-rule-index.ts';
import type { PermissionRule } from '../../rules/rule-types.ts';
import { indexShellRules, ShellRuleIndex } from '../../rules/shell-rule-index.ts';
import type { Workspace } from '../workspace.ts';
import type { EnvVarClass } from './shell-contract.ts';

/** Rules given as a list (in precedence order) or already compiled. */
type RuleList<Index> = readonly PermissionRule[] | Index;

/** Rules and facts every subcommand of one command is checked against (as callers give them). */
export interface SubcommandCheckContext {
  mode: PermissionMode;
  workspace: Workspace;
  /** The shell family's content rules (`Bash(...)`). */
  shellRules: {
    deny: RuleList<ShellRuleIndex>;
    ask: RuleList<ShellRuleIndex>;
    allow: RuleList<ShellRuleIndex>;
  };
  /** Path rules for what commands read and write. */
  pathRules: {
    readDeny: RuleList<PathRuleIndex>;
    /** Read ask rules: a read they cover asks like a write an Edit ask rule covers. */
    readAsk?: RuleList<PathRuleIndex>;
    writeDeny: RuleList<PathRuleIndex>;
    writeAsk: RuleList<PathRuleIndex>;
    writeAllow: RuleList<PathRuleIndex>;
    /** Read and Edit allow rules: a path they cover may be read from outside the working directories. */
    readAllow?: RuleList<PathRuleIndex>;
  };
  classifyEnvVar: (name: string) => EnvVarClass;
  /** The rule family name, for suggestions (`Bash`). */
  family: string;
}

/** The context with every rule list compiled: shell rules by first word, path rules by directory. */
export interface IndexedCheckContext extends Omit<SubcommandCheckContext, 'shellRules' | 'pathRules'> {
  shellRules: { deny: ShellRuleIndex; ask: ShellRuleIndex; allow: ShellRuleIndex };
  pathRules: {
    readDeny: PathRuleIndex;
    readAsk?: PathRuleIndex;
    writeDeny: PathRuleIndex;
    writeAsk: PathRuleIndex;
    writeAllow: PathRuleIndex;
    readAllow?: PathRuleIndex;
  };
}

const shellIndexes = new WeakMap<readonly PermissionRule[], ShellRuleIndex>();

function shellIndex(rules: RuleList<ShellRuleIndex>): ShellRuleIndex {
  if (rules instanceof ShellRuleIndex) return rules;
  let index = shellIndexes.get(rules);
  if (!index) {
    index = indexShellRules(rules);
    shellIndexes.set(rules, index);
  }
  return index;
}

function pathIndex(rules: RuleList<PathRuleIndex>, lookup: PathLookup, workspace: Workspace): PathRuleIndex {
  return rules instanceof PathRuleIndex
    ? rules
    : indexPathRules(rules, lookup, { cwd: workspace.cwd, home: workspace.home });
}

/** Compiles whatever rule lists a caller gave as plain arrays. */
export function indexCheckContext(context: SubcommandCheckContext): IndexedCheckContext {
  const { shellRules, pathRules, workspace } = context;
  const indexed: IndexedCheckContext = {
    ...context,
    shellRules: {
      deny: shellIndex(shellRules.deny),
      ask: shellIndex(shellRules.ask),
      allow: shellIndex(shellRules.allow),
    },
    pathRules: {
      readDeny: pathIndex(pathRules.readDeny, 'deny', workspace),
      writeDeny: pathIndex(pathRules.writeDeny, 'deny', workspace),
      writeAsk: pathIndex(pathRules.writeAsk, 'ask', workspace),
      writeAllow: pathIndex(pathRules.writeAllow, 'allow', workspace),
    },
  };
  if (pathRules.readAllow) indexed.pathRules.readAllow = pathIndex(pathRules.readAllow, 'allow', workspace);
  if (pathRules.readAsk) indexed.pathRules.readAsk = pathIndex(pathRules.readAsk, 'ask', workspace);
  return indexed;
}
