import type {
  AnyTool,
  AskUser,
  PermissionDecision,
  PermissionPrompt,
  PermissionPromptAnswer,
  PermissionRequest,
  PermissionResolver,
  PermissionSuggestion,
  ToolPermissionResult,
  ToolUseContext,
  TraceStep,
} from '../../core/index.ts';
import { errorMessage } from '../../core/index.ts';
import type { ShellAnalyzer } from '../decide/shell/shell-contract.ts';
import type { AutoModeClassifier } from '../classifier/classifier-types.ts';
import type { RealpathFn } from '../paths/canonical-path.ts';
import { buildRules } from '../rules/build-rules.ts';
import { printRule } from '../rules/parse-rule.ts';
import type { PermissionRule, RuleSet } from '../rules/rule-types.ts';
import { maxRulesPerAnswer, persistAllowRules } from '../settings/persist-rules.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';
import { runClassifier } from './classifier-step.ts';
import { unapprovedMessage } from '../decide/describe-call.ts';
import { type Evaluation, evaluatePermission } from '../decide/evaluate-permission.ts';
import { createWorkspace, type Workspace } from '../decide/workspace.ts';

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

function toolPermissions(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
): Promise<ToolPermissionResult> {
  return tool.checkPermissions(input, context).catch((error: unknown) => ({
    behavior: 'ask' as const,
    message: `${tool.name} could not check its own permissions (${errorMessage(error)})`,
    classifierApprovable: false,
  }));
}

const safeReadOnly = (tool: AnyTool, input: Record<string, unknown>): boolean | null => {
  // An MCP server's readOnlyHint is its own claim: it may schedule calls in parallel, never allow one.
  if (tool.mcpInfo) return null;
  try {
    return tool.isReadOnly(input);
  } catch {
    return null;
  }
};

/**
 * The permission stage of the pipeline. Runs {@link evaluatePermission}; when it asks, tries in turn
 * the PermissionRequest hook, the auto-mode classifier (auto mode), the parent (bubble mode) and
 * the person (`askUser`). "Allow for the session" adds session rules; "always allow" also saves them.
 */
export function createPermissionResolver(options: PermissionResolverOptions): PermissionResolver {
  const sessionRules: PermissionRule[] = [];
  const sessionDirectories: string[] = [];
  const baseRules = options.rules ?? options.settings?.rules ?? { allow: [], deny: [], ask: [] };
  const persist = options.persistRules ?? persistAllowRules;

  const addSessionRules = (
    suggestions: readonly { toolName: string; ruleContent?: string }[],
    root: string,
  ) => {
    const texts = suggestions.map((suggestion) =>
      printRule(
        suggestion.ruleContent === undefined
          ? { toolName: suggestion.toolName }
          : { toolName: suggestion.toolName, ruleContent: suggestion.ruleContent },
      ),
    );
    const built = buildRules(texts, 'allow', { source: 'session', origin: 'this session', root });
    sessionRules.push(...built.rules);
    return texts;
  };

  // The rule set and the workspace are rebuilt only when they change, so their compiled forms
  // (the rule index, resolved working directories) are reused from call to call.
  let currentRules: { sessionCount: number; rules: RuleSet } | undefined;
  const rulesInForce = (): RuleSet => {
    if (currentRules?.sessionCount !== sessionRules.length) {
      currentRules = {
        sessionCount: sessionRules.length,
        rules: { ...baseRules, allow: [...baseRules.allow, ...sessionRules] },
      };
    }
    return currentRules.rules;
  };
  let currentWorkspace: { key: string; workspace: Workspace } | undefined;
  const workspaceFor = (context: ToolUseContext): Workspace => {
    const home = options.home ?? options.settings?.home ?? context.run.env.HOME ?? '/';
    const additionalDirectories = [
      ...context.run.additionalDirectories,
      ...(options.settings?.additionalDirectories ?? []),
      ...sessionDirectories,
    ];
    const key = JSON.stringify([context.run.cwd, context.run.projectRoot, home, additionalDirectories]);
    if (currentWorkspace?.key !== key) {
      currentWorkspace = {
        key,
        workspace: createWorkspace({
          cwd: context.run.cwd,
          projectRoot: context.run.projectRoot,
          home,
          additionalDirectories,
          ...(options.realpath ? { realpath: options.realpath } : {}),
        }),
      };
    }
    return currentWorkspace.workspace;
  };

  const evaluate = async (
    tool: AnyTool,
    input: Record<string, unknown>,
    context: ToolUseContext,
    request: PermissionRequest,
  ): Promise<Evaluation> => {
    const workspace = workspaceFor(context);
    const toolResult = await toolPermissions(tool, input, context);
    const evaluation = {
      tool: { name: tool.name, aliases: tool.aliases },
      input,
      target: tool.permissionTarget(input, context),
      readOnly: safeReadOnly(tool, input),
      toolResult,
      mode: context.run.permissionMode,
      rules: rulesInForce(),
      workspace,
      ...(request.hookDecision ? { hookDecision: request.hookDecision } : {}),
      ...(options.shell ? { shell: options.shell } : {}),
    };
    const evaluated = evaluatePermission(evaluation);
    return toolResult.behavior === 'ask' && toolResult.preview !== undefined
      ? { ...evaluated, preview: toolResult.preview }
      : evaluated;
  };

  return async (request) => {
    const { tool, context, toolUseId } = request;
    const signal = context.run.abortController.signal;
    const first = await evaluate(tool, request.input, context, request);
    if (first.behavior !== 'ask' || request.dryRun) return strip(first);
    const trace: TraceStep[] = [...first.trace];
    const reason = first.reason ?? 'it needs approval';
    const suggestions = first.suggestions ?? [];
    const input = first.updatedInput ?? request.input;
    const call = first.message ?? reason;

    if (options.onPermissionRequest) {
      const hook = await options.onPermissionRequest(
        { tool, input, toolUseId, context, suggestions, message: call },
        signal,
      );
      if (hook) {
        for (const update of hook.updatedPermissions ?? []) {
          if (update.type === 'addRules' && update.behavior === 'allow' && update.rules)
            addSessionRules(update.rules, context.run.cwd);
          if (update.type === 'addDirectories' && update.directories)
            sessionDirectories.push(...update.directories);
        }
        if (hook.behavior === 'deny') {
          if (hook.interrupt)
            context.run.abortController.abort(new Error('A PermissionRequest hook interrupted the turn.'));
          return {
            behavior: 'deny',
            message: hook.message ?? `${call} A PermissionRequest hook denied it.`,
            trace: [
              ...trace,
              {
                stage: 'hook',
                outcome: 'deny',
                detail: `PermissionRequest hook denied${hook.message ? `: ${hook.message}` : ''}.`,
              },
            ],
          };
        }
        const updated = hook.updatedInput ?? input;
        if (hook.updatedInput) {
          // A rewritten input is checked again: deny and ask rules still win over the hook.
          const again = await evaluate(tool, updated, context, request);
          if (again.behavior === 'deny' || again.askKind === 'rule' || again.askKind === 'safety') {
            return strip(again.behavior === 'deny' ? again : { ...again, behavior: 'ask' });
          }
        }
        return {
          behavior: 'allow',
          updatedInput: updated,
          trace: [
            ...trace,
            { stage: 'hook', outcome: 'allow', detail: 'PermissionRequest hook allowed the call.' },
          ],
        };
      }
    }

    const mode = context.run.permissionMode;
    // Only an ask that merely lacks a rule ('default') is the classifier's to settle. Rule asks,
    // safety checks (protected paths, critical removals), analysis failures (too complex to check)
    // and workspace asks (reads or writes outside the working directories) need a person or a rule.
    if (
      mode === 'auto' &&
      options.classifier &&
      first.askKind === 'default' &&
      first.classifierApprovable !== false
    ) {
      const classified = await runClassifier(options.classifier, { tool, input, context, reason });
      trace.push(...classified.trace);
      if (classified.behavior !== 'prompt')
        return {
          behavior: classified.behavior,
          ...(classified.message ? { message: classified.message } : {}),
          trace,
        };
    }

    const prompter = mode === 'bubble' && options.parentAsk ? options.parentAsk : options.askUser;
    if (!prompter) {
      return {
        behavior: 'ask',
        message: unapprovedMessage(
          first.call ?? `use ${tool.name}`,
          reason,
          'no one is available to approve it',
        ),
        trace,
        ...(suggestions.length ? { suggestions } : {}),
      };
    }
    const prompt: PermissionPrompt = {
      toolName: tool.name,
      input,
      toolUseId,
      agentId: context.agent.agentId,
      message: call,
      suggestions,
      ...(first.preview !== undefined ? { preview: first.preview } : {}),
    };
    let answer: PermissionPromptAnswer;
    try {
      answer = await prompter(prompt, signal);
    } catch (error) {
      return {
        behavior: 'deny',
        message: `The permission prompt failed (${errorMessage(error)}). Do not retry; ask the user.`,
        trace,
      };
    }
    const who = mode === 'bubble' && options.parentAsk ? 'the parent agent' : 'the user';
    if (answer.choice === 'deny') {
      return {
        behavior: 'deny',
        message: `The user denied this call${answer.feedback ? `: ${answer.feedback}` : '.'} Do not retry it; follow the user's feedback or choose another approach.`,
        trace: [...trace, { stage: 'callback', outcome: 'deny', detail: `${who} denied the call.` }],
      };
    }
    const saved = suggestions.slice(0, maxRulesPerAnswer);
    if (answer.choice === 'allow-session' || answer.choice === 'allow-always')
      addSessionRules(saved, context.run.cwd);
    if (answer.choice === 'allow-always' && saved.length > 0) {
      await persist(
        context.run.projectRoot,
        saved.map((suggestion) =>
          printRule(
            suggestion.ruleContent === undefined
              ? { toolName: suggestion.toolName }
              : { toolName: suggestion.toolName, ruleContent: suggestion.ruleContent },
          ),
        ),
      );
    }
    return {
      behavior: 'allow',
      ...(answer.updatedInput
        ? { updatedInput: answer.updatedInput }
        : first.updatedInput
          ? { updatedInput: first.updatedInput }
          : {}),
      trace: [
        ...trace,
        { stage: 'callback', outcome: 'allow', detail: `${who} allowed the call (${answer.choice}).` },
      ],
    };
  };
}

/** Drops the evaluation-only fields so the pipeline sees a plain decision. */
function strip(evaluation: Evaluation): PermissionDecision {
  const decision: PermissionDecision = { behavior: evaluation.behavior, trace: evaluation.trace };
  if (evaluation.message !== undefined) decision.message = evaluation.message;
  if (evaluation.updatedInput !== undefined) decision.updatedInput = evaluation.updatedInput;
  if (evaluation.suggestions !== undefined) decision.suggestions = evaluation.suggestions;
  return decision;
}
