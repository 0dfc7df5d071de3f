import {
  type AnyTool,
  type AskUser,
  checkedManagedSettingsPath,
  checkedUserHome,
  chooseDeferredTools,
  createToolUseContext,
  DeferredTools,
  deferredToolsKey,
  EfferentError,
  parseToolSearchMode,
  type PermissionMode,
  type PermissionPromptAnswer,
  type PermissionResolver,
  type PermissionTarget,
  type PreparedShellAnalysis,
  type RunToolUse,
  type ToolResultBlock,
  type ToolUseContext,
  type UiCallbacks,
} from '../core/index.ts';
import {
  type AdapterOptions,
  type AiSdkTool,
  type OpenAIAgentsTool,
  toAiSdkTools,
  toOpenAIAgentsTools,
} from '../adapters/index.ts';
import { type ResultBudget, createResultBudget } from '../budget/index.ts';
import {
  createHookInput,
  createHookRunner,
  type HookConditionMatcher,
  type HookRunner,
  type HooksSettings,
  hookOutputDir,
  type InProcessHook,
  type OwnedHookRunner,
  promptHookProviderKey,
} from '../hooks/index.ts';
import {
  type AutoModeClassifier,
  type CliSettingsInput,
  configurationEnvironment,
  createPermissionResolver,
  createReadDenyCheck,
  createRuleBasedClassifier,
  type LoadedSettings,
  defaultShellAnalyzer,
  loadDefaultShellAnalyzer,
  type PermissionResolverOptions,
  loadSettings,
  matchesRuleCondition,
  type PermissionRequestHookResult,
  type ShellAnalyzer,
  toolNameMatches,
} from '../permissions/index.ts';
import { createToolRunner, type ToolRunnerDeps } from '../pipeline/index.ts';
import { adoptPreparedAnalysis } from '../shell/index.ts';
import { preparedCallOf } from '../core/prepared-call.ts';
import { findToolByName } from '../core/tool-lookup.ts';
import { assembleToolPool, type FeatureFlags, getAllBaseTools, ToolSearchTool } from '../registry/index.ts';
import type { AgentRun, SessionRunOptions } from './run-events.ts';
import { startRun } from './session-run.ts';
import {
  checkWorkingDirectory,
  chooseTools,
  createPromptRouter,
  disposeBeforeExit,
  type SessionAskUser,
  type ToolChoice,
} from './session-setup.ts';
import {
  askingWebSearch,
  isWebSearchTool,
  planModeAllowedMcpTool,
  readOnlyClaim,
} from './web-search-default.ts';
import { type WouldAsk, wouldAsk } from './would-ask.ts';
import { isWorkspaceTrusted } from './workspace-trust.ts';
import { sandboxConfigurationKey } from '../sandbox/config.ts';

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
    options?: {
      id?: string;
      onProgress?: (data: unknown) => void;
      /** Aborting interrupts the call (it follows its interrupt behaviour). */
      signal?: AbortSignal;
      /** Answers this call's permission prompt, if it asks (your own approval flow already asked). */
      answer?: PermissionPromptAnswer;
    },
  ): Promise<ToolResultBlock>;
  resolvePermission: PermissionResolver;
  /** The session's hooks; `dispose()` ends their background (`async`) runs. */
  hooks: OwnedHookRunner;
  /** Apply `applyToTurn` to each turn's results (runAgent does when given it). */
  resultBudget: ResultBudget;
  /** The current context: a `cd` or mode change made by `callTool` or `run` carries over. */
  readonly context: ToolUseContext;
  settings: LoadedSettings;
  /** Which tools are deferred (sent by name until ToolSearch loads them); empty when none are. */
  deferredTools: DeferredTools;
  /**
   * Runs the agent loop on this session: `for await (const event of session.run({ provider, prompt }))`
   * for flat events, or `await session.run(...).result` for the outcome. Tools, pipeline, result
   * budget and context come from the session; the context after the run becomes the session's.
   */
  run(options: SessionRunOptions): AgentRun;
  /**
   * Would this call need approval? Evaluates rules, mode, the tool's own check and the safety checks
   * on the session's current context without prompting, running hooks or a classifier.
   */
  wouldAsk(name: string, input: Record<string, unknown>): Promise<WouldAsk>;
  /** The pool as Vercel AI SDK tools, with efferent's pipeline, scheduling, cwd tracking and budgets. */
  toAiSdkTools(options?: AdapterOptions): Promise<Record<string, AiSdkTool>>;
  /** The pool as OpenAI Agents JS function tools, with the same guarantees as `toAiSdkTools`. */
  toOpenAIAgentsTools(options?: AdapterOptions): Promise<OpenAIAgentsTool[]>;
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
  /**
   * `false` does not wait for the bash grammar when the session opens: it loads when the Bash tool
   * is first validated, and until then shell questions fail closed (a command is not read-only, so
   * not run in parallel). For one-call processes that may never run Bash (`efferent call`, `check`).
   * Default true.
   */
  loadShellParserAtStart?: boolean;
  /**
   * The permission prompt; without it, asks resolve with nobody to answer (refused with an
   * explanation). It may answer `ask-later` (see {@link askLater}) to stop `run` and resume later.
   */
  askUser?: SessionAskUser;
  /** Auto mode's classifier; default the rule-based one, which never allows (a person decides). */
  classifier?: AutoModeClassifier;
  /**
   * The tools by inclusion: built-in names (or aliases) and your own tool objects, e.g.
   * `['Read', 'Glob', WordCount]`. Default: every built-in. Tools answering to one name are refused.
   */
  tools?: readonly ToolChoice[];
  /** Tools besides `tools` (or the built-ins): MCP tools (with `mcpInfo`) or your own. */
  extraTools?: readonly AnyTool[];
  /** In-process hooks, run with the settings files' command hooks (Claude Code's contract). */
  hooks?: readonly InProcessHook[];
  /** Called with what a tool threw, stack intact (the model gets an error result either way). */
  onToolError?: ToolRunnerDeps['onToolError'];
  /**
   * Where "always allow" answers are saved. Default: `.efferent/settings.local.json` under the
   * project root; `false` keeps them for this session only; a function stores them elsewhere.
   */
  persistRules?: false | NonNullable<PermissionResolverOptions['persistRules']>;
  /**
   * Dispose the session when the event loop empties (`beforeExit`), so a process that forgot
   * `dispose()` still ends; default true.
   */
  disposeOnExit?: boolean;
  flags?: FeatureFlags;
  env?: Readonly<Record<string, string | undefined>>;
  sessionDir?: string;
  ui?: UiCallbacks;
  maxConcurrency?: number;
  /**
   * Deferred tools (`ENABLE_TOOL_SEARCH`): `auto` (default: defer once MCP tool definitions pass 10%
   * of the context window), `auto:N`, `true` or `false`. Default: the `ENABLE_TOOL_SEARCH` variable.
   */
  toolSearch?: string | boolean;
  /** The model's context window in tokens, for `auto` deferral; default 200,000. */
  contextWindowTokens?: number;
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
  return (pattern, toolName, toolInput, hookInput, prepared) => {
    // The call the pipeline prepared answers for itself (its target carries its one shell analysis).
    const own = prepared?.observableInput === toolInput ? prepared : undefined;
    const tool = own?.view ?? findToolByName(scope.tools, toolName);
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
    const shell =
      scope.shell && target.kind === 'command' && target.analysis
        ? withPreparedAnalysis(scope.shell, target.analysis)
        : scope.shell;
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
      shell ? { shell } : {},
    );
  };
}

/** The analyser, answering for one prepared command from its analysis instead of parsing again. */
function withPreparedAnalysis(shell: ShellAnalyzer, prepared: PreparedShellAnalysis): ShellAnalyzer {
  return {
    classifyEnvVar: (name) => shell.classifyEnvVar(name),
    analyzeCommand: (command, options) =>
      adoptPreparedAnalysis(prepared, shell.analyzeCommand, command, options) ??
      shell.analyzeCommand(command, options),
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
    const prepared = preparedCallOf(request.tool);
    const outcome = await hooks.run('PermissionRequest', input, {
      signal,
      matchValue: request.tool.name,
      ...(prepared ? { prepared } : {}),
    });
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

/** efferent's configuration for a session's options, known before the session opens. */
export interface SessionConfiguration {
  /** The merged settings `env`. */
  settingsEnv: Record<string, string>;
  /** The environment configuration variables are read from: the options' (or the process's) overlaid by `settingsEnv`. */
  env: Record<string, string | undefined>;
  /** The settings `model` key, when a file sets one. */
  model?: string;
  /** The settings `cleanupPeriodDays`, when a file sets a whole number above zero. */
  cleanupPeriodDays?: number;
}

/**
 * Where the session reads the user's and the machine's configuration: the given `home` and policy
 * path, else `HOME` (the process's: a settings `env` never moves it) and `EFFERENT_MANAGED_SETTINGS`
 * from `env`, each refused when a project could have chosen it (relative, or inside the project).
 */
export function configurationLocations(
  options: Pick<SessionOptions, 'cwd' | 'projectRoot' | 'home' | 'managedSettingsPath'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { home: string; managedSettingsPath: string; notices: string[] } {
  const folders = [options.projectRoot ?? options.cwd, options.cwd];
  const notices: string[] = [];
  let home = options.home;
  if (home === undefined) {
    const checked = checkedUserHome(folders);
    home = checked.path;
    if (checked.notice) notices.push(checked.notice);
  }
  let managedSettingsPath = options.managedSettingsPath;
  if (managedSettingsPath === undefined) {
    const checked = checkedManagedSettingsPath(folders, env);
    managedSettingsPath = checked.path;
    if (checked.notice) notices.push(checked.notice);
  }
  return { home, managedSettingsPath, notices };
}

/**
 * The configuration a session with these options would apply (trust decides as in
 * {@link createSession}), so things chosen before the session opens — the provider, its base URL and
 * model, MCP servers and their `MCP_TIMEOUT`-style limits — read the same environment as its tools.
 */
export async function sessionConfiguration(options: SessionOptions): Promise<SessionConfiguration> {
  const env = options.env ?? process.env;
  const { home, managedSettingsPath } = configurationLocations(options, env);
  const settings = await loadSettings({
    cwd: options.cwd,
    home,
    trusted: options.trusted ?? (await isWorkspaceTrusted(home, options.projectRoot ?? options.cwd)),
    cli: { ...options.cli },
    ...(options.projectRoot ? { projectRoot: options.projectRoot } : {}),
    ...(options.claudeCompat !== undefined ? { claudeCompat: options.claudeCompat } : {}),
    managedSettingsPath,
  });
  return {
    settingsEnv: settings.env,
    env: configurationEnvironment(env, settings.env),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.cleanupPeriodDays ? { cleanupPeriodDays: settings.cleanupPeriodDays } : {}),
  };
}

/** The settings `env` a session with these options would apply (see {@link sessionConfiguration}). */
export async function settingsEnvironment(options: SessionOptions): Promise<Record<string, string>> {
  return (await sessionConfiguration(options)).settingsEnv;
}

/**
 * Loads settings (rules, mode, hooks, env) for a working directory and assembles the session: the
 * tool pool, the shell analyser, the permission resolver with its PermissionRequest hook, the hook
 * runner, the result budget, the 14-step pipeline and a fresh context.
 */
export async function createSession(options: SessionOptions): Promise<Session> {
  await checkWorkingDirectory(options.cwd);
  const env = options.env ?? process.env;
  const locations = configurationLocations(options, env);
  const home = locations.home;
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
    managedSettingsPath: locations.managedSettingsPath,
  });
  settings.notices.unshift(...locations.notices);
  const shell =
    options.loadShellParserAtStart === false ? defaultShellAnalyzer : await loadDefaultShellAnalyzer();
  const allTools = getAllBaseTools(options.flags);
  // A WebSearch tool (a program's or an MCP server's) asks unless a rule allows it.
  const hasExplicitAllow = (tool: AnyTool) =>
    settings.rules.allow.some(
      (rule) =>
        rule.value.ruleContent === undefined && toolNameMatches(rule.value.toolName, tool.name, tool.aliases),
    );
  // An explicitly allowed MCP tool its server marks read-only runs in plan mode.
  const extra = (options.extraTools ?? []).map((tool) =>
    isWebSearchTool(tool)
      ? askingWebSearch(tool, hasExplicitAllow)
      : tool.mcpInfo && readOnlyClaim(tool)
        ? planModeAllowedMcpTool(tool, hasExplicitAllow)
        : tool,
  );
  const poolInput = {
    builtIns: chooseTools(
      allTools,
      options.tools,
      extra.filter((tool) => !tool.mcpInfo),
    ),
    mcpTools: extra.filter((tool) => tool.mcpInfo),
    isDenied: blanketDenyCheck(settings),
  };
  let tools = assembleToolPool(poolInput);
  const deferredNames = await chooseDeferredTools(tools, {
    mode: parseToolSearchMode(options.toolSearch ?? env['ENABLE_TOOL_SEARCH']),
    ...(options.contextWindowTokens ? { contextWindowTokens: options.contextWindowTokens } : {}),
  });
  // ToolSearch joins the pool only when something is deferred: it is how deferred tools load.
  if (deferredNames.size > 0)
    tools = assembleToolPool({ ...poolInput, builtIns: [...poolInput.builtIns, ToolSearchTool] });
  const isReadDenied = createReadDenyCheck({ rules: settings.rules, home });
  const context = createToolUseContext({
    cwd: options.cwd,
    projectRoot: settings.projectRoot,
    tools,
    model: options.model ?? 'unknown',
    isNonInteractive: options.askUser === undefined,
    permissionMode: settings.defaultMode,
    additionalDirectories: settings.additionalDirectories,
    // Tools get the configuration environment without the agent's credentials (settings may pass one on purpose).
    env: configurationEnvironment(withoutModelCredentials(env), settings.env),
    ...(options.sessionDir ? { sessionDir: options.sessionDir } : {}),
    ...(options.ui ? { ui: options.ui } : {}),
    ...(options.maxConcurrency ? { maxConcurrency: options.maxConcurrency } : {}),
    // Searches drop what Read deny rules hide; without such rules the check is absent and free.
    ...(isReadDenied ? { isReadDenied } : {}),
  });
  // The sandbox's network allowlist and read denies from settings, for Bash (and hooks, MCP servers).
  if (settings.sandbox) {
    const { network, denyRead } = settings.sandbox;
    const configuration = context.run.resources?.get(sandboxConfigurationKey);
    if (configuration) configuration.configuration = { ...(network ? { network } : {}), denyRead };
  }
  const hooks = createHookRunner({
    hooks: mergeHooks(settings),
    ...(options.hooks ? { callbacks: options.hooks } : {}),
    projectDir: settings.projectRoot,
    // Hooks see the settings' env too, as tools do (the model credentials stay, as in Claude Code).
    env: { ...env, ...settings.env },
    disabled: settings.disableAllHooks || options.runHooks === false,
    ...(settings.allowedHttpHookUrls ? { allowedHttpHookUrls: settings.allowedHttpHookUrls } : {}),
    outputDir: hookOutputDir(context.run.sessionDir),
    // `prompt` hooks ask the provider of the run in progress (the loop puts it in this slot).
    promptProvider: () => context.run.resources?.peek(promptHookProviderKey)?.provider,
    // `sandbox.hooks`: command hooks run in the sandbox, writing only the project, with their own allowlist.
    ...(settings.sandbox?.hooks
      ? {
          sandbox: {
            writableDirectories: [settings.projectRoot],
            ...(settings.sandbox.hooks.allowedDomains.length > 0
              ? { network: { allowedDomains: settings.sandbox.hooks.allowedDomains } }
              : {}),
          },
        }
      : {}),
    matchesCondition: hookConditionMatcher({
      tools: [...tools, ...allTools],
      context,
      home,
      projectRoot: settings.projectRoot,
      shell,
    }),
  });
  const prompts = createPromptRouter(options.askUser);
  const resolverOptions: PermissionResolverOptions = {
    settings,
    home,
    onPermissionRequest: permissionRequestHook(hooks),
    ...(options.persistRules === false
      ? { persistRules: async () => [] }
      : options.persistRules
        ? { persistRules: options.persistRules }
        : {}),
    // Auto mode's default reviewer is rule-based: it never allows, it explains why a person is asked.
    classifier: options.classifier ?? createRuleBasedClassifier(),
    ...(shell ? { shell } : {}),
  };
  // Read at each ask: answers given in advance (resume, a framework's approval) reach the resolver
  // even in a session without a prompt.
  // Notification hooks hear about every permission prompt before the person sees it.
  Object.defineProperty(resolverOptions, 'askUser', {
    get: () => {
      const askUser = prompts.current();
      return askUser ? notifyingAskUser(askUser, hooks, context) : undefined;
    },
    enumerable: true,
  });
  const resolvePermission = createPermissionResolver(resolverOptions);
  const resultBudget = createResultBudget({ sessionDir: context.run.sessionDir });
  const deferredTools = context.run.resources?.get(deferredToolsKey) ?? new DeferredTools();
  deferredTools.setDeferred([...deferredNames].filter((name) => tools.some((tool) => tool.name === name)));
  const runTool = createToolRunner({
    tools,
    allTools,
    resolvePermission,
    hooks,
    budget: resultBudget,
    deferred: deferredTools,
    ...(options.onToolError ? { onToolError: options.onToolError } : {}),
  });
  let current = context;
  let forgetOnExit = () => {};
  let ended = false;
  const dispose = async () => {
    forgetOnExit();
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
    // A direct call names its tool knowingly (no model guessed the schema), so a deferred tool loads.
    deferredTools.load([name]);
    const block = {
      type: 'tool_use' as const,
      id: callOptions.id ?? `toolu_session_${callCount}`,
      name,
      input,
    };
    if (callOptions.answer) prompts.preset(block.id, callOptions.answer);
    let callContext = current;
    const signal = callOptions.signal;
    if (signal) {
      const controller = new AbortController();
      if (signal.aborted) controller.abort(signal.reason);
      else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
      callContext = { ...current, run: { ...current.run, abortController: controller } };
    }
    try {
      for await (const event of runTool(block, callContext)) {
        if (event.type === 'progress') callOptions.onProgress?.(event.data);
        else {
          // A `cd` (or another context change) carries over to the session's next call.
          if (event.contextModifier) current = event.contextModifier(current);
          return event.result;
        }
      }
    } finally {
      prompts.forget(block.id);
    }
    throw new EfferentError('internal', 'The pipeline ended without a result.');
  };
  const session: Session = {
    tools,
    allTools,
    runTool,
    callTool,
    resolvePermission,
    hooks,
    resultBudget,
    get context() {
      return current;
    },
    settings,
    deferredTools,
    run: (runOptions) =>
      startRun(
        {
          tools,
          runTool,
          resultBudget,
          context: () => current,
          setContext: (next) => {
            current = next;
          },
          beginRun: prompts.beginRun,
        },
        runOptions,
      ),
    toAiSdkTools: (adapterOptions) => toAiSdkTools(session, adapterOptions),
    toOpenAIAgentsTools: (adapterOptions) => toOpenAIAgentsTools(session, adapterOptions),
    wouldAsk: (name, input) =>
      wouldAsk({ tools, allTools, resolvePermission, context: current }, name, input),
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
  if (options.disposeOnExit !== false) forgetOnExit = disposeBeforeExit(dispose);
  return session;
}
