import type { PermissionSuggestion, ToolUseContext } from '../../core/index.ts';
import { createWorkspace, type Workspace } from '../decide/workspace.ts';
import type { RealpathFn } from '../paths/canonical-path.ts';
import { buildRules } from '../rules/build-rules.ts';
import { printRule } from '../rules/parse-rule.ts';
import type { PermissionRule, RuleSet } from '../rules/rule-types.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';

/** A suggestion (or a hook's rule update) as rule text: `Bash(npm run *)`. */
export function suggestionText(suggestion: Pick<PermissionSuggestion, 'toolName' | 'ruleContent'>): string {
  return printRule(
    suggestion.ruleContent === undefined
      ? { toolName: suggestion.toolName }
      : { toolName: suggestion.toolName, ruleContent: suggestion.ruleContent },
  );
}

/**
 * What one resolver has granted beyond its settings: rules allowed "for the session" (or by a
 * PermissionRequest hook) and directories a hook added. The rule set and the workspace are rebuilt
 * only when they change, so their compiled forms (the rule index, resolved working directories)
 * are reused from call to call.
 */
export class SessionGrants {
  private readonly sessionRules: PermissionRule[] = [];
  private readonly sessionDirectories: string[] = [];
  private currentRules: { sessionCount: number; rules: RuleSet } | undefined;
  private currentWorkspace: { key: readonly string[]; workspace: Workspace } | undefined;

  constructor(
    private readonly baseRules: RuleSet,
    private readonly options: { settings?: LoadedSettings; home?: string; realpath?: RealpathFn },
  ) {}

  /** Adds allow rules for the rest of the session; returns their text. */
  addRules(
    suggestions: readonly Pick<PermissionSuggestion, 'toolName' | 'ruleContent'>[],
    root: string,
  ): string[] {
    const texts = suggestions.map(suggestionText);
    const built = buildRules(texts, 'allow', { source: 'session', origin: 'this session', root });
    this.sessionRules.push(...built.rules);
    return texts;
  }

  addDirectories(directories: readonly string[]): void {
    this.sessionDirectories.push(...directories);
  }

  rulesInForce(): RuleSet {
    if (this.currentRules?.sessionCount !== this.sessionRules.length) {
      const { baseRules } = this;
      this.currentRules = {
        sessionCount: this.sessionRules.length,
        rules: { ...baseRules, allow: [...baseRules.allow, ...this.sessionRules] },
      };
    }
    return this.currentRules.rules;
  }

  workspaceFor(context: ToolUseContext): Workspace {
    const { options } = this;
    const home = options.home ?? options.settings?.home ?? context.run.env.HOME ?? '/';
    const additionalDirectories = [
      ...context.run.additionalDirectories,
      ...(options.settings?.additionalDirectories ?? []),
      ...this.sessionDirectories,
    ];
    const key = [context.run.cwd, context.run.projectRoot, home, ...additionalDirectories];
    const current = this.currentWorkspace;
    if (current !== undefined && sameWords(current.key, key)) return current.workspace;
    const workspace = createWorkspace({
      cwd: context.run.cwd,
      projectRoot: context.run.projectRoot,
      home,
      additionalDirectories,
      ...(options.realpath ? { realpath: options.realpath } : {}),
    });
    this.currentWorkspace = { key, workspace };
    return workspace;
  }
}

/** Whether two lists hold the same strings in the same order. */
function sameWords(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
