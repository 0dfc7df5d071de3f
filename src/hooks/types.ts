import type { ModelProvider, PermissionMode, PreparedCall } from '../core/index.ts';
import type { HookSandbox } from './sandboxed-hook.ts';

/** Every hook event Claude Code defines; efferent fires the tool events and accepts the rest in config. */
export const hookEvents = [
  'SessionStart',
  'Setup',
  'InstructionsLoaded',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'MessageDisplay',
  'PreToolUse',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Notification',
  'SubagentStart',
  'SubagentStop',
  'TaskCreated',
  'TaskCompleted',
  'Stop',
  'StopFailure',
  'TeammateIdle',
  'ConfigChange',
  'CwdChanged',
  'DirectoryAdded',
  'FileChanged',
  'WorktreeCreate',
  'WorktreeRemove',
  'PreCompact',
  'PostCompact',
  'Elicitation',
  'ElicitationResult',
  'SessionEnd',
] as const;

/** A hook event name. */
export type HookEvent = (typeof hookEvents)[number];

/** A command handler as written in a settings file. */
export interface CommandHookHandler {
  type: 'command';
  command: string;
  /** Exec form: run `command` with these arguments and no shell. */
  args?: readonly string[];
  /** Seconds; default 600 (some events have shorter defaults). */
  timeout?: number;
  /**
   * Fire and forget: the hook runs in the background and its output is ignored. It is still killed at
   * its timeout and when the runner is disposed. (`asyncRewake` is not supported: such a hook runs
   * like any other async hook and cannot wake the model.)
   */
  async?: boolean;
  shell?: 'bash' | 'powershell';
  /** A permission-rule pattern such as `Bash(git *)`; only checked on tool events. */
  if?: string;
  statusMessage?: string;
}

/** Any handler a settings file may hold; only `command` handlers run, others are reported as skipped. */
export type HookHandlerConfig = CommandHookHandler | { type: string; [key: string]: unknown };

/** One matcher group of a settings file. */
export interface HookMatcherConfig {
  matcher?: string;
  hooks: readonly HookHandlerConfig[];
}

/** The `hooks` object of a Claude Code settings file. */
export type HooksSettings = Partial<Record<string, readonly HookMatcherConfig[]>>;

/** Fields every hook receives on stdin. */
export interface HookCommonInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode: PermissionMode;
  hook_event_name: HookEvent;
  agent_id?: string;
  agent_type?: string;
}

/** What a hook receives: the common fields plus the event's own. */
export type HookInput = HookCommonInput & Record<string, unknown>;

/** A hook's verdict on a call. `defer` hands the call back to the embedding program. */
export type HookPermissionBehavior = 'allow' | 'deny' | 'ask' | 'defer';

/** A PermissionRequest hook's answer. */
export interface PermissionRequestDecision {
  behavior: 'allow' | 'deny';
  updatedInput?: Record<string, unknown>;
  updatedPermissions?: unknown[];
  message?: string;
  interrupt?: boolean;
}

/** The JSON a hook prints (or an in-process hook returns), in Claude Code's format. */
export interface HookJSONOutput {
  continue?: boolean;
  stopReason?: string;
  suppressOutput?: boolean;
  systemMessage?: string;
  decision?: 'approve' | 'block';
  reason?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    permissionDecision?: HookPermissionBehavior;
    permissionDecisionReason?: string;
    updatedInput?: Record<string, unknown>;
    additionalContext?: string;
    updatedToolOutput?: unknown;
    updatedMCPToolOutput?: unknown;
    decision?: PermissionRequestDecision;
    retry?: boolean;
    [key: string]: unknown;
  };
  /** Async form: the hook continues in the background. */
  async?: boolean;
  asyncTimeout?: number;
}

/** An in-process hook, like the Agent SDK's HookCallback. */
export type HookCallback = (
  input: HookInput,
  toolUseId: string | undefined,
  options: { signal: AbortSignal },
) => HookJSONOutput | undefined | Promise<HookJSONOutput | undefined>;

/** An in-process hook registration. */
export interface InProcessHook {
  event: HookEvent;
  matcher?: string;
  callback: HookCallback;
  /** Seconds; default 60. */
  timeout?: number;
}

/** A hook that failed without blocking; the action went ahead. */
export interface HookError {
  hook: string;
  message: string;
}

/** What the hooks for one event said, merged. */
export interface HookOutcome {
  /** How many hooks ran. */
  ran: number;
  /**
   * A blocking error (exit code 2, a `decision:"block"` from PreToolUse, an in-process PreToolUse timeout).
   * What it means depends on the event: PreToolUse blocks the call, PostToolUse shows it to the model.
   */
  blocked?: { reason: string; hook: string };
  /** Merged across hooks: deny > defer > ask > allow. */
  permissionDecision?: { behavior: HookPermissionBehavior; reason?: string; hook: string };
  /** The last `updatedInput` in configuration order. */
  updatedInput?: Record<string, unknown>;
  /** `additionalContext` values, plus plain stdout for events that take it as context. */
  additionalContext: string[];
  /** `systemMessage` values: shown to the user, not the model. */
  systemMessages: string[];
  /** `continue:false`: the loop should stop after this. */
  stop?: { reason: string; hook: string };
  /** `decision:"block"` reasons on events where that means feedback (PostToolUse, Stop, …). */
  blockReasons: string[];
  /** PostToolUse replacement output (the last one given). */
  updatedToolOutput?: { value: unknown };
  updatedMCPToolOutput?: { value: unknown };
  /** PermissionRequest: merged, deny beats allow. */
  permissionRequestDecision?: PermissionRequestDecision;
  /** PermissionDenied: some hook says the model may retry. */
  retry: boolean;
  errors: HookError[];
}

/** Options for one hook run. */
export interface HookRunOptions {
  signal: AbortSignal;
  /** What matchers match against: the tool name for tool events, the source for SessionStart, … */
  matchValue?: string;
  /** Passed to in-process hooks. */
  toolUseId?: string;
  /** The tool call as the pipeline prepared it; `if` conditions read it instead of analysing again. */
  prepared?: PreparedCall | undefined;
  /** Extra environment for command hooks of this run (e.g. `CLAUDE_ENV_FILE` for SessionStart). */
  env?: Readonly<Record<string, string>>;
}

/** Runs the hooks configured for an event. */
export interface HookRunner {
  run(event: HookEvent, input: HookInput, options: HookRunOptions): Promise<HookOutcome>;
  hasHooks(event: HookEvent, matchValue?: string): boolean;
}

/** A hook runner that owns its background (`async: true`) hooks and must be disposed. */
export interface OwnedHookRunner extends HookRunner, AsyncDisposable {
  /** How many background hooks are still running. */
  readonly backgroundCount: number;
  /**
   * Kills every background hook with its whole process group and waits until each has exited;
   * background hooks asked for afterwards do not start.
   */
  dispose(): Promise<void>;
}

/**
 * Decides whether a hook's `if` pattern applies to a tool call; given by the permission engine. It
 * gets the whole hook input too (the cwd, the event), since matching paths needs a directory. A
 * matcher that throws counts as a match: the hook runs.
 */
export type HookConditionMatcher = (
  pattern: string,
  toolName: string,
  toolInput: unknown,
  input: HookInput,
  prepared?: PreparedCall,
) => boolean;

/** How to build a {@link HookRunner}. */
export interface HookRunnerConfig {
  /** The `hooks` object of one or more merged settings files. */
  hooks?: HooksSettings;
  callbacks?: readonly InProcessHook[];
  /** Commands run here and get it as CLAUDE_PROJECT_DIR; defaults to the input's `cwd`. */
  projectDir?: string;
  /** The base environment of hook commands; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Evaluates `if` patterns on tool events; without it a hook with `if` always runs there (it may
   * then decide for itself). On other events a hook with `if` never runs, as in Claude Code.
   */
  matchesCondition?: HookConditionMatcher;
  /**
   * Where output strings over 10,000 characters are saved (a session uses `<sessionDir>/hook-output`);
   * the model then gets a preview and the path. Without it such strings are cut.
   */
  outputDir?: string;
  /** `disableAllHooks` from settings. */
  disabled?: boolean;
  /** Run command hooks in the OS sandbox (settings: `sandbox.hooks`). */
  sandbox?: HookSandbox;
  /** URL patterns (`*` wildcards) `http` hooks may post to; undefined allows every URL, as in Claude Code. */
  allowedHttpHookUrls?: readonly string[];
  /**
   * The model `prompt` hooks ask, looked up at each run (a session gives the provider of the run in
   * progress); undefined or returning undefined: prompt hooks are skipped with a warning shown once,
   * and on PreToolUse the call is asked about.
   */
  promptProvider?: () => ModelProvider | undefined;
}
