/**
 * efferent's public API: named exports only, hand-picked. `test/api-surface.test.ts` pins the list,
 * so anything added here is added on purpose.
 */

// Core contracts: tools, context, messages, stream events, permission vocabulary, errors.
export * from './core/index.ts';

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
  costOf,
  createSession,
  normalizeMessagesForApi,
  type RunAgentOptions,
  runAgent,
  type Session,
  type SessionOptions,
} from './agent/index.ts';
