import { homedir } from 'node:os';
import {
  type AnyTool,
  type AskUser,
  createToolUseContext,
  EfferentError,
  type PermissionMode,
  type PermissionResolver,
  type PermissionTarget,
  type RunToolUse,
  type ToolResultBlock,
  type ToolUseContext,
  type UiCallbacks,
} from '../core/index.ts';
import { type ResultBudget, createResultBudget } from '../budget/index.ts';
import {
  createHookInput,
  createHookRunner,
  type HookConditionMatcher,
  type HookRunner,
  type HooksSettings,
  hookOutputDir,
  type OwnedHookRunner,
} from '../hooks/index.ts';
import {
  type AutoModeClassifier,
  type CliSettingsInput,
  createPermissionResolver,
  createReadDenyCheck,
  createRuleBasedClassifier,
  type LoadedSettings,
  loadDefaultShellAnalyzer,
  loadSettings,
  managedSettingsPathFrom,
  matchesRuleCondition,
  type PermissionRequestHookResult,
  type ShellAnalyzer,
  toolNameMatches,
} from '../permissions/index.ts';
import { createToolRunner } from '../pipeline/index.ts';
import { assembleToolPool, type FeatureFlags, getAllBaseTools } from '../registry/index.ts';
import { isWorkspaceTrusted } from './workspace-trust.ts';

/** Everything an agent (or a single call) needs to run tools: the pool, the pipeline and a context. */
export interface Session extends AsyncDisposable {
  /** The pool the model sees: built-ins first, then MCP tools, blanket-denied tools removed. */
  tools: AnyTool[];
  /** Every built-in this build knows, for renamed-tool lookup. */
  allTools: AnyTool[];
  runTool: RunToolUse;
  /**
   * Runs one call through the pipeline with the session's context and resolves with its tool_result
   * (failures are `isError` results, never throws); progress goes to `onProgress`.
   */
  callTool(
    name: string,
    input: Record<string, unknown>,
    options?: { id?: string; onProgress?: (data: unknown) => void },
  ): Promise<ToolResultBlock>;
  resolvePermission: PermissionResolver;
  /** The session's hooks; `dispose()` ends their background (`async`) runs. */
  hooks: OwnedHookRunner;
  /** Apply `applyToTurn` to each turn's results (runAgent does when given it). */
  resultBudget: ResultBudget;
  context: ToolUseContext;
  settings: LoadedSettings;
  /** Kills background hooks and releases background shells, the REPL and other session resources. */
  dispose(): Promise<void>;
}

/** How to set up a session. Only `cwd` is required. */
export interface SessionOptions {
  cwd: string;
  /** The project root (`/x` rules, protected paths); default `cwd`. */
  projectRoot?: string;
  home?: string;
  model?: string;
  /** Overrides the mode the settings ask for. */
  permissionMode?: PermissionMode;
  /**
   * Whether project settings may loosen anything (allow rules, directories, env, hooks, modes).
   * Default: whether the user trusted this folder before (`trustWorkspace`); an untrusted folder's
   * settings only tighten (deny and ask rules, the default, plan or dontAsk mode).
   */
  trusted?: boolean;
  /** Command-line settings (`--settings`, `--allowedTools`, …). */
  cli?: CliSettingsInput;
  /** Read Claude Code's `.claude/` settings files too (default: yes, unless a settings file says `"claudeCompat": false`). */
  claudeCompat?: boolean;
  /** The managed policy file; default `EFFERENT_MANAGED_SETTINGS` from `env`, else `/etc/efferent/managed-settings.json`. */
  managedSettingsPath?: string;
  /** `false` opens the session without running any hook (`efferent check` decides without side effects). */
  runHooks?: boolean;
  /** The interactive prompt; without it, asks resolve with nobody to answer (refused with an explanation). */
  askUser?: AskUser;
  /** Auto mode's classifier; default the rule-based one, which never allows (a person decides). */
  classifier?: AutoModeClassifier;
  /** Tools besides the built-ins: MCP tools (with `mcpInfo`) or your own. */
  extraTools?: readonly AnyTool[];
  flags?: FeatureFlags;
  env?: Readonly<Record<string, string | undefined>>;
  sessionDir?: string;
  ui?: UiCallbacks;
  maxConcurrency?: number;
}

/**
 * The agent's own model credentials. Tools (Bash, the REPL) never need them, and a model that can
 * run `env` must not be able to read them; a settings file's `env` may still pass one on purpose.
 */
export const modelCredentialVariables: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
];

/** The environment tools get: the caller's, minus the agent's own model credentials. */
function withoutModelCredentials(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const copy = { ...env };
  for (const name of modelCredentialVariables) delete copy[name];
  return copy;
}

/** Merges each settings file's hooks into one configuration, highest precedence first. */
function mergeHooks(settings: LoadedSettings): HooksSettings {
  const merged: Record<string, unknown[]> = {};
  for (const layer of settings.hooks) {
    for (const [event, matchers] of Object.entries(layer.hooks)) {
      if (!Array.isArray(matchers)) continue;
      merged[event] = [...(merged[event] ?? []), ...matchers];
    }
  }
  return merged as HooksSettings;
}

/** A deny rule without content (`Bash`, `mcp__server`) removes the tool from what the model sees. */
function blanketDenyCheck(settings: LoadedSettings): (tool: AnyTool) => boolean {
  return (tool) =>
    settings.rules.deny.some(
      (rule) =>
        rule.value.ruleContent === undefined && toolNameMatches(rule.value.toolName, tool.name, tool.aliases),
    );
}

/** What a hook `if` condition needs from the session to match a call the way permission rules do. */
interface ConditionScope {
  tools: readonly AnyTool[];
  context: ToolUseContext;
  home: string;
  projectRoot: string;
  shell: ShellAnalyzer | undefined;
}

/**
 * Evaluates hook `if` patterns with the permission engine: the tool (found by name or alias) says what
 * the call touches through its `permissionTarget`, resolved against the cwd the hook input reports.
 */
function hookConditionMatcher(scope: ConditionScope): HookConditionMatcher {
  return (pattern, toolName, toolInput, hookInput) => {
    const tool = scope.tools.find(
      (candidate) => candidate.name === toolName || candidate.aliases.includes(toolName),
    );
    const input =
      toolInput !== null && typeof toolInput === 'object' && !Array.isArray(toolInput)
        ? (toolInput as Record<string, unknown>)
        : {};
    const cwd = hookInput.cwd;
    const context: ToolUseContext = { ...scope.context, run: { ...scope.context.run, cwd } };
    // A tool that cannot describe this input has no target; the condition then runs the hook.
    let target: PermissionTarget = { kind: 'none' };
    try {
      if (tool) target = tool.permissionTarget(input, context);
    } catch {
      target = { kind: 'none' };
    }
    return matchesRuleCondition(
      pattern,
      {
        toolName,
        aliases: tool?.aliases ?? [],
        input,
        target,
        cwd,
        home: scope.home,
        projectRoot: scope.projectRoot,
      },
      scope.shell ? { shell: scope.shell } : {},
    );
  };
}

/** Runs PermissionRequest hooks before a person would be asked (Claude Code's contract). */
function permissionRequestHook(hooks: HookRunner) {
  return async (
    request: {
      tool: AnyTool;
      input: Record<string, unknown>;
      toolUseId: string;
      context: ToolUseContext;
      suggestions: unknown[];
    },
    signal: AbortSignal,
  ): Promise<PermissionRequestHookResult | undefined> => {
    if (!hooks.hasHooks('PermissionRequest', request.tool.name)) return undefined;
    const input = createHookInput('PermissionRequest', request.context, {
      tool_name: request.tool.name,
      tool_input: request.input,
      permission_suggestions: request.suggestions,
    });
    const outcome = await hooks.run('PermissionRequest', input, { signal, matchValue: request.tool.name });
    const decision = outcome.permissionRequestDecision;
    if (!decision) return undefined;
    const result: PermissionRequestHookResult = { behavior: decision.behavior };
    if (decision.updatedInput) result.updatedInput = decision.updatedInput;
    if (decision.message !== undefined) result.message = decision.message;
    if (decision.interrupt !== undefined) result.interrupt = decision.interrupt;
    if (Array.isArray(decision.updatedPermissions)) {
      result.updatedPermissions = decision.updatedPermissions as NonNullable<
        PermissionRequestHookResult['updatedPermissions']
      >;
    }
    return result;
  };
}

/** Fires Notification hooks (`permission_prompt`) before each permission prompt reaches the person. */
function notifyingAskUser(askUser: AskUser, hooks: HookRunner, context: ToolUseContext): AskUser {
  return async (prompt, signal) => {
    if (hooks.hasHooks('Notification', 'permission_prompt')) {
      const input = createHookInput('Notification', context, {
        message: `efferent needs your permission to use ${prompt.toolName}`,
        notification_type: 'permission_prompt',
      });
      await hooks.run('Notification', input, { signal, matchValue: 'permission_prompt' });
    }
    return askUser(prompt, signal);
  };
}

/**
 * The settings `env` a session with these options would apply (trust decides as in
 * {@link createSession}), so things started before the session — MCP servers, efferent's own
 * `MCP_TIMEOUT`-style variables — can use it too.
 */
export async function settingsEnvironment(options: SessionOptions): Promise<Record<string, string>> {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const settings = await loadSettings({
    cwd: options.cwd,
    home,
    trusted: options.trusted ?? (await isWorkspaceTrusted(home, options.projectRoot ?? options.cwd)),
    cli: { ...options.cli },
    ...(options.projectRoot ? { projectRoot: options.projectRoot } : {}),
    ...(options.claudeCompat !== undefined ? { claudeCompat: options.claudeCompat } : {}),
    managedSettingsPath: options.managedSettingsPath ?? managedSettingsPathFrom(env),
  });
  return settings.env;
}

/**
 * Loads settings (rules, mode, hooks, env) for a working directory and assembles the session: the
 * tool pool, the shell analyser, the permission resolver with its PermissionRequest hook, the hook
 * runner, the result budget, the 14-step pipeline and a fresh context.
 */
export async function createSession(options: SessionOptions): Promise<Session> {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const cli: CliSettingsInput = { ...options.cli };
  if (options.permissionMode) cli.permissionMode = options.permissionMode;
  const trusted = options.trusted ?? (await isWorkspaceTrusted(home, options.projectRoot ?? options.cwd));
  const settings = await loadSettings({
    cwd: options.cwd,
    home,
    trusted,
    cli,
    ...(options.projectRoot ? { projectRoot: options.projectRoot } : {}),
    ...(options.claudeCompat !== undefined ? { claudeCompat: options.claudeCompat } : {}),
    managedSettingsPath: options.managedSettingsPath ?? managedSettingsPathFrom(env),
  });
  const shell = await loadDefaultShellAnalyzer();
  const allTools = getAllBaseTools(options.flags);
  const extra = options.extraTools ?? [];
  const tools = assembleToolPool({
    builtIns: [...allTools, ...extra.filter((tool) => !tool.mcpInfo)],
    mcpTools: extra.filter((tool) => tool.mcpInfo),
    isDenied: blanketDenyCheck(settings),
  });
  const isReadDenied = createReadDenyCheck({ rules: settings.rules, home });
  const context = createToolUseContext({
    cwd: options.cwd,
    projectRoot: settings.projectRoot,
    tools,
    model: options.model ?? 'unknown',
    isNonInteractive: options.askUser === undefined,
    permissionMode: settings.defaultMode,
    additionalDirectories: settings.additionalDirectories,
    env: { ...withoutModelCredentials(env), ...settings.env },
    ...(options.sessionDir ? { sessionDir: options.sessionDir } : {}),
    ...(options.ui ? { ui: options.ui } : {}),
    ...(options.maxConcurrency ? { maxConcurrency: options.maxConcurrency } : {}),
    // Searches drop what Read deny rules hide; without such rules the check is absent and free.
    ...(isReadDenied ? { isReadDenied } : {}),
  });
  const hooks = createHookRunner({
    hooks: mergeHooks(settings),
    projectDir: settings.projectRoot,
    // Hooks see the settings' env too, as tools do (the model credentials stay, as in Claude Code).
    env: { ...env, ...settings.env },
    disabled: settings.disableAllHooks || options.runHooks === false,
    ...(settings.allowedHttpHookUrls ? { allowedHttpHookUrls: settings.allowedHttpHookUrls } : {}),
    outputDir: hookOutputDir(context.run.sessionDir),
    matchesCondition: hookConditionMatcher({
      tools: [...tools, ...allTools],
      context,
      home,
      projectRoot: settings.projectRoot,
      shell,
    }),
  });
  const askUser = options.askUser;
  const resolvePermission = createPermissionResolver({
    settings,
    home,
    onPermissionRequest: permissionRequestHook(hooks),
    // Notification hooks hear about every permission prompt before the person sees it.
    ...(askUser ? { askUser: notifyingAskUser(askUser, hooks, context) } : {}),
    // Auto mode's default reviewer is rule-based: it never allows, it explains why a person is asked.
    classifier: options.classifier ?? createRuleBasedClassifier(),
    ...(shell ? { shell } : {}),
  });
  const resultBudget = createResultBudget({ sessionDir: context.run.sessionDir });
  const runTool = createToolRunner({ tools, allTools, resolvePermission, hooks, budget: resultBudget });
  let ended = false;
  const dispose = async () => {
    if (!ended && hooks.hasHooks('SessionEnd', 'other')) {
      ended = true;
      const input = createHookInput('SessionEnd', context, { reason: 'other' });
      await hooks.run('SessionEnd', input, { signal: new AbortController().signal, matchValue: 'other' });
    }
    // Both run even if one fails: no background hook or shell may outlive the session.
    const results = await Promise.allSettled([hooks.dispose(), context.run.resources?.dispose()]);
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
  };
  let callCount = 0;
  const callTool: Session['callTool'] = async (name, input, callOptions = {}) => {
    callCount += 1;
    const block = {
      type: 'tool_use' as const,
      id: callOptions.id ?? `toolu_session_${callCount}`,
      name,
      input,
    };
    for await (const event of runTool(block, context)) {
      if (event.type === 'progress') callOptions.onProgress?.(event.data);
      else return event.result;
    }
    throw new EfferentError('internal', 'The pipeline ended without a result.');
  };
  return {
    tools,
    allTools,
    runTool,
    callTool,
    resolvePermission,
    hooks,
    resultBudget,
    context,
    settings,
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
