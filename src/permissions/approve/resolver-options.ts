import type { AnyTool, AskUser, PermissionSuggestion, ToolUseContext } from '../../core/index.ts';
import type { ShellAnalyzer } from '../decide/shell/shell-contract.ts';
import type { AutoModeClassifier } from '../classifier/classifier-types.ts';
import type { RealpathFn } from '../paths/canonical-path.ts';
import type { RuleSet } from '../rules/rule-types.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';

/** What a PermissionRequest hook may answer (Claude Code's `hookSpecificOutput.decision`). */
export interface PermissionRequestHookResult {
  behavior: 'allow' | 'deny';
  updatedInput?: Record<string, unknown>;
  /** Rule updates; `addRules` to `session` or `localSettings`, and `addDirectories` for the session, are applied. */
  updatedPermissions?: Array<{
    type: string;
    rules?: Array<{ toolName: string; ruleContent?: string }>;
    behavior?: 'allow' | 'deny' | 'ask';
    destination?: string;
    directories?: string[];
  }>;
  message?: string;
  /** Stop the whole turn, not just this call. */
  interrupt?: boolean;
}

/** Options for {@link createPermissionResolver}. */
export interface PermissionResolverOptions {
  /** Merged settings; their rules apply to every call. */
  settings?: LoadedSettings;
  /** Rules to use instead of (or without) loaded settings. */
  rules?: RuleSet;
  /** The home directory `~/` rules and paths use; defaults to the settings' home. */
  home?: string;
  askUser?: AskUser;
  classifier?: AutoModeClassifier;
  /** The PermissionRequest hook, run before a person would be asked. */
  onPermissionRequest?: (
    request: {
      tool: AnyTool;
      input: Record<string, unknown>;
      toolUseId: string;
      context: ToolUseContext;
      suggestions: PermissionSuggestion[];
      message: string;
    },
    signal: AbortSignal,
  ) => Promise<PermissionRequestHookResult | undefined>;
  /** Bubble mode: where a subagent's prompts go (its parent's prompt). */
  parentAsk?: AskUser;
  /** The shell analyser for command targets. */
  shell?: ShellAnalyzer;
  realpath?: RealpathFn;
  /** Saves "always allow" rules; default: `.efferent/settings.local.json` under the project root. */
  persistRules?: (projectRoot: string, rules: string[]) => Promise<string[]>;
}
