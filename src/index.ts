/**
 * efferent's public API: every export listed by name, grouped by layer. `test/api-surface.test.ts`
 * pins the runtime names and `test/api-types.test.ts` fails when a type reachable from an exported
 * signature is not exported here, so anything added here is added on purpose. To add a feature's
 * exports, add one block to its section (or a new section): values first, then its types.
 */

// Core contracts: tools, context, messages, stream events, permission vocabulary, errors.
export {
  buildTool,
  chooseDeferredTools,
  classifyToolError,
  cloneReadFileState,
  createInputValidator,
  createReadFileState,
  createSubagentContext,
  createToolUseContext,
  defaultMaxResultSizeChars,
  defaultResultBlock,
  DeferredTools,
  deferredToolsKey,
  EfferentError,
  ErrorCodes,
  efferentError,
  emptyUsage,
  errorMessage,
  formatInputIssues,
  internalFieldPrefix,
  isBadStopReason,
  isDeferrable,
  isInternalField,
  isStrictCompatible,
  loadedSubset,
  parseToolSearchMode,
  permissionModes,
  SessionResources,
  startupFileNames,
  subagentFieldPolicy,
  systemReminder,
  textBlock,
  toAnthropicSchema,
  toGeminiSchema,
  toOpenAISchema,
  toOpenAIStrictSchema,
  toolInputJsonSchema,
  toolResultText,
  userMessage,
} from './core/index.ts';
export type {
  AgentContext,
  AnyTool,
  DeferralOptions,
  InputIssue,
  InputValidator,
  OpenAIStrictEmission,
  RequestDeferral,
  ToolSearchMode,
  AskUser,
  AssistantMessage,
  CanUseTool,
  ContentBlock,
  CreateContextInit,
  DecisionTrace,
  DenialTracking,
  ErrorCode,
  FieldPolicy,
  FileReadRecord,
  HookPermissionDecision,
  ImageBlock,
  ImageMediaType,
  InterruptBehavior,
  JsonSchema,
  McpClientInfo,
  Message,
  ModelProvider,
  ModelRequest,
  PermissionBehavior,
  PermissionDecision,
  PermissionMode,
  PermissionPrompt,
  PermissionPromptAnswer,
  PermissionRequest,
  PermissionResolver,
  PermissionSuggestion,
  PermissionTarget,
  PromptOptions,
  ReadFileState,
  RuleSource,
  RunState,
  RunToolUse,
  SessionResource,
  SessionResourceKey,
  StopReason,
  StreamEvent,
  SubagentInit,
  TextBlock,
  ThinkingBlock,
  TokenUsage,
  Tool,
  ToolDefinition,
  ToolPermissionResult,
  ToolProgress,
  ToolResult,
  ToolResultBlock,
  ToolResultContent,
  ToolRunEvent,
  ToolUseBlock,
  ToolUseContext,
  ToolUseOptions,
  TraceStep,
  UiCallbacks,
  UserMessage,
  ValidationResult,
} from './core/index.ts';

// Registry: the built-ins, the pool the model sees, and schemas per provider.
export {
  assembleToolPool,
  type FeatureFlags,
  featureFlagsFromEnv,
  findTool,
  getAllBaseTools,
  isMcpTool,
  type ProviderToolDefinition,
  type SchemaProvider,
  toProviderTool,
  toProviderTools,
  toRequestTools,
} from './registry/index.ts';

// The built-in tools.
export { BashTool, type BashToolOptions, createBashTool } from './tools/bash/bash.ts';
export { EditTool } from './tools/edit/edit.ts';
export { createGlobTool, GlobTool } from './tools/glob/glob.ts';
export { GrepTool } from './tools/grep/grep.ts';
export { MultiEditTool } from './tools/multi-edit/multi-edit.ts';
export { NotebookEditTool } from './tools/notebook-edit/notebook-edit.ts';
export { createPowerShellTool, PowerShellTool } from './tools/powershell/powershell.ts';
export { ReadTool } from './tools/read/read.ts';
export { ReplTool } from './tools/repl/repl.ts';
export { writeFileAtomic } from './tools/shared/atomic-write.ts';
export { SleepTool } from './tools/sleep/sleep.ts';
export { TaskOutputTool } from './tools/task-output/task-output.ts';
export { TaskStopTool } from './tools/task-stop/task-stop.ts';
export { ThinkTool } from './tools/think/think.ts';
export { ToolSearchTool } from './tools/tool-search/tool-search.ts';
export { TodoWriteTool } from './tools/todo-write/todo-write.ts';
export { WriteTool } from './tools/write/write.ts';

// Shell analysis on a real bash AST.
export {
  analyzeCommand,
  type CommandAnalysis,
  classifyEnvVar,
  isReadOnlyCommand,
  loadShellParser,
  parseForSecurity,
  type ShellParseResult,
  type SimpleCommand,
  unwrapCommand,
} from './shell/index.ts';

// The permission engine.
export {
  type AutoModeClassifier,
  type CheckCase,
  type CheckResult,
  checkPermissionCase,
  createModelClassifier,
  createPermissionResolver,
  createReadDenyCheck,
  createRuleBasedClassifier,
  createTwoStageClassifier,
  evaluatePermission,
  type LoadedSettings,
  type SettingsWarning,
  type UnusedSettingsKey,
  loadDefaultShellAnalyzer,
  loadSettings,
  type PermissionResolverOptions,
  type ReadDenyCheck,
  parseRule,
  persistAllowRules,
  printRule,
} from './permissions/index.ts';

// Hooks, result budgeting, telemetry.
export {
  createHookInput,
  createHookRunner,
  type HookEvent,
  type HookJSONOutput,
  type HookOutcome,
  type HookRunner,
  hookEvents,
  type InProcessHook,
} from './hooks/index.ts';
export { createResultBudget, type ResultBudget, resultBudgetDefaults } from './budget/index.ts';
export { createCapturingTelemetry, createOtelTelemetry, type Telemetry } from './telemetry/index.ts';

// The pipeline, the executor, providers and the agent loop.
export { createToolNameResolver, createToolRunner, type ToolRunnerDeps } from './pipeline/index.ts';
export {
  partitionToolCalls,
  runStreamingTurn,
  runToolBatches,
  StreamingToolExecutor,
  type StreamingToolExecutorOptions,
} from './executor/index.ts';
export {
  createAnthropicProvider,
  createOpenAIProvider,
  createScriptedProvider,
  loadSessionFile,
  parseSessionFile,
  type ScriptedTurn,
} from './providers/index.ts';
export {
  type AgentEvent,
  askLater,
  costOf,
  createSession,
  normalizeMessagesForApi,
  type RunAgentOptions,
  runAgent,
  type Session,
  type SessionOptions,
} from './agent/index.ts';
export type {
  AgentDone,
  AgentRun,
  AgentStopReason,
  RetryEvent,
  AskLaterAnswer,
  PendingApproval,
  RunEvent,
  RunResult,
  RunStreamEvent,
  RunToolEvent,
  SessionAskAnswer,
  SessionAskUser,
  SessionRunOptions,
  ToolChoice,
  UsageTotals,
  WouldAsk,
} from './agent/index.ts';

// Adapters: the session's tools inside the Vercel AI SDK and OpenAI Agents JS.
export {
  type AdaptedResult,
  type AdapterOptions,
  type AdapterSession,
  type AiSdkContentPart,
  type AiSdkModelOutput,
  type AiSdkSchema,
  type AiSdkTool,
  type OpenAIAgentsParameters,
  type OpenAIAgentsTool,
  type OpenAIAgentsToolOutput,
  toAiSdkTools,
  toOpenAIAgentsTools,
} from './adapters/index.ts';

// Types that appear in the signatures above, by the layer that declares them.
export type { ResultBudgetOptions } from './budget/result-budget.ts';
export type { CallOutcome, ExecutorEvent } from './executor/executor-events.ts';
export type { TurnEvent, TurnOutcome } from './executor/run-streaming-turn.ts';
export type { RunToolBatchesOptions, ToolBatch } from './executor/tool-batches.ts';
export type {
  CommandHookHandler,
  HookCallback,
  HookCommonInput,
  HookConditionMatcher,
  HookError,
  HookHandlerConfig,
  HookInput,
  HookMatcherConfig,
  HookPermissionBehavior,
  HookRunOptions,
  HookRunnerConfig,
  HooksSettings,
  OwnedHookRunner,
  PermissionRequestDecision,
} from './hooks/types.ts';
export type {
  AnalyzedSubcommandLike,
  CommandAnalysisLike,
  RedirectLike,
  ShellAnalyzer,
} from './permissions/decide/shell/shell-contract.ts';
export type { CheckOptions } from './permissions/check-case.ts';
export type {
  ClassifierRequest,
  ClassifierStage,
  ClassifierStageVerdict,
  ClassifierVerdict,
} from './permissions/classifier/classifier-types.ts';
export type { CompletionProvider } from './permissions/classifier/model-classifier.ts';
export type { DefaultShellAnalyzer } from './permissions/default-shell.ts';
export type {
  GitInspection,
  GitInspector,
  GitInvocation,
  StoreRead,
} from './permissions/git-config/inspect-git.ts';
export type { RealpathFn } from './permissions/paths/canonical-path.ts';
export type { FoundLink, LinkScan, LinkScanFn } from './permissions/paths/link-scan.ts';
export type { ReadDenyCheckOptions } from './permissions/read-deny-check.ts';
export type { PermissionRequestHookResult } from './permissions/approve/create-resolver.ts';
export type { Evaluation, EvaluationRequest } from './permissions/decide/evaluate-permission.ts';
export type { RuleSubject } from './permissions/decide/rule-match.ts';
export type { AskKind } from './permissions/decide/verdict.ts';
export type { Workspace } from './permissions/decide/workspace.ts';
export type { PermissionRule, RuleSet, RuleValue } from './permissions/rules/rule-types.ts';
export type { CliSettingsInput, LoadSettingsOptions } from './permissions/settings/load-settings.ts';
export type { HooksConfig } from './permissions/settings/settings-schema.ts';
export type { HooksLayer } from './permissions/settings/settings-types.ts';
export type { ToolNameRules } from './pipeline/tool-name-resolver.ts';
export type { ClassifierStart, DeferredToolState, ToolErrorCall } from './pipeline/types.ts';
export type { AnthropicProviderOptions } from './providers/anthropic.ts';
export type { OpenAIProviderOptions } from './providers/openai.ts';
export type { ScriptedProviderOptions } from './providers/replay.ts';
export type { ScriptedEvent } from './providers/session-file.ts';
export type {
  AnthropicToolDefinition,
  GeminiToolDefinition,
  OpenAIToolDefinition,
  ProviderToolOptions,
} from './registry/provider-schemas.ts';
export type { BlanketDenyCheck, ToolPoolInput } from './registry/tool-pool.ts';
export type { AnalyzedSubcommand, AnalyzeOptions } from './shell/analyze.ts';
export type { EnvVarClass } from './shell/env-vars.ts';
export type { IndirectRead } from './shell/read-only/indirect-reads.ts';
export type { ArgKind, CommandOrigin, EnvVar, Redirect } from './shell/types.ts';
export type { CapturingTelemetry, ToolCallEvent, ToolCallOutcome } from './telemetry/telemetry.ts';
export type { SandboxMode } from './tools/bash/bash-invocation.ts';
export type { BashInput } from './tools/bash/bash.ts';
export type { GlobOptions } from './tools/glob/glob.ts';
export type { PowerShellInput } from './tools/powershell/powershell.ts';
export type { ReplEvaluation } from './tools/repl/repl-session.ts';
export type { ReplInput } from './tools/repl/repl.ts';
export type { AtomicWriteOptions } from './tools/shared/atomic-write.ts';
export type { BackgroundTaskStatus } from './tools/shared/process/background-tasks.ts';
export type { ShellProgress } from './tools/shared/process/run-command.ts';
export type { SandboxAvailability } from './tools/shared/process/sandbox.ts';
export type { ShellOutput } from './tools/shared/process/shell-output.ts';
export type { TaskOutputInput, TaskOutputResult } from './tools/task-output/task-output.ts';
export type { TaskStopInput, TaskStopResult } from './tools/task-stop/task-stop.ts';

// Prepared calls: what a tool works out once per call, read by every later step.
export type {
  PreparedCall,
  PreparedShellAnalysis,
  RunToolUseOptions,
  ToolInvocation,
  ToolPreparationReuse,
} from './core/index.ts';

// The OS sandbox shared by Bash, MCP stdio servers and command hooks.
export type { SandboxConfiguration } from './sandbox/config.ts';
export type { NetworkPolicy } from './sandbox/network/network-policy.ts';
export type { HostResolver } from './sandbox/network/proxy.ts';
export type { HookSandbox } from './hooks/sandboxed-hook.ts';
export type { LinkScanOptions } from './permissions/paths/link-scan.ts';
export type { SandboxSettings } from './permissions/settings/sandbox-settings.ts';
