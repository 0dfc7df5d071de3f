import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from './messages.ts';
import type { PermissionMode } from './permission-types.ts';
import { cloneReadFileState, createReadFileState, type ReadFileState } from './read-file-state.ts';
import { SessionResources } from './session-resources.ts';
import type { AnyTool } from './tool.ts';

/** An MCP server the session is connected to, as tools see it. */
export interface McpClientInfo {
  name: string;
  instructions?: string;
}

/** Set once per query; mostly immutable. */
export interface ToolUseOptions {
  tools: readonly AnyTool[];
  model: string;
  mcpClients: readonly McpClientInfo[];
  debug: boolean;
  /** True in headless and SDK use: nobody can answer a prompt. */
  isNonInteractive: boolean;
  /** How many concurrency-safe calls may run at once. */
  maxConcurrency: number;
}

/** Counts auto-mode classifier blocks, so prompting takes over after too many. */
export interface DenialTracking {
  consecutive: number;
  total: number;
}

/** State that changes while the agent runs. */
export interface RunState {
  abortController: AbortController;
  readFileState: ReadFileState;
  messages: Message[];
  /** The directory commands and relative paths start from; changed only by context modifiers. */
  cwd: string;
  /** The primary working directory: the project root. */
  projectRoot: string;
  /** Further directories the user allowed tools to work in. */
  additionalDirectories: readonly string[];
  permissionMode: PermissionMode;
  sessionId: string;
  /** Where this session keeps files (persisted results, task output). */
  sessionDir: string;
  /**
   * The session's JSONL transcript (`~/.efferent/projects/<project>/<session>.jsonl`) when the CLI
   * saves one: what hook inputs report as `transcript_path`.
   */
  transcriptPath?: string;
  denialTracking: DenialTracking;
  /** The environment tools pass to child processes. */
  env: Readonly<Record<string, string | undefined>>;
  /** The clock tools use, so tests can control time. */
  now: () => number;
  /**
   * Long-lived things the session owns (background shells, a REPL), shared with subagents and
   * released by `resources.dispose()` when the session ends. Optional: hand-built contexts may omit it.
   */
  resources?: SessionResources;
  /**
   * Whether the user's Read deny rules cover an absolute path (as written or through the symlink it
   * names), with `./x` rules anchored at `cwd`. Search tools drop such paths from their results, so a
   * search never shows what Read would refuse. Absent when no Read deny rule exists.
   */
  isReadDenied?: (absolutePath: string, cwd: string) => boolean;
}

/** Hooks into an interactive UI; absent in headless and SDK use. */
export interface UiCallbacks {
  notify?: (text: string) => void;
  setStatus?: (text: string | undefined) => void;
}

/** Who is running: the main agent or a subagent. */
export interface AgentContext {
  agentId: string;
  agentType?: string;
  /** The parent's rendered system prompt, frozen so a forked subagent keeps the cache prefix. */
  parentSystemPrompt?: string;
  depth: number;
  /** Async (background) agents cannot change the parent's state. */
  isAsync: boolean;
}

/** Everything a tool call can see, grouped by concern. */
export interface ToolUseContext {
  options: ToolUseOptions;
  run: RunState;
  ui?: UiCallbacks;
  agent: AgentContext;
}

/** What a caller must or may give to {@link createToolUseContext}. */
export interface CreateContextInit {
  cwd: string;
  projectRoot?: string;
  tools?: readonly AnyTool[];
  model?: string;
  mcpClients?: readonly McpClientInfo[];
  debug?: boolean;
  isNonInteractive?: boolean;
  maxConcurrency?: number;
  additionalDirectories?: readonly string[];
  permissionMode?: PermissionMode;
  sessionId?: string;
  sessionDir?: string;
  env?: Readonly<Record<string, string | undefined>>;
  now?: () => number;
  abortController?: AbortController;
  ui?: UiCallbacks;
  messages?: Message[];
  resources?: SessionResources;
  isReadDenied?: (absolutePath: string, cwd: string) => boolean;
}

/** A fresh context for the main agent, with sane defaults for everything not given. */
export function createToolUseContext(init: CreateContextInit): ToolUseContext {
  const sessionId = init.sessionId ?? randomUUID();
  const context: ToolUseContext = {
    options: {
      tools: init.tools ?? [],
      model: init.model ?? 'unknown',
      mcpClients: init.mcpClients ?? [],
      debug: init.debug ?? false,
      isNonInteractive: init.isNonInteractive ?? true,
      maxConcurrency: init.maxConcurrency ?? 10,
    },
    run: {
      abortController: init.abortController ?? new AbortController(),
      readFileState: createReadFileState(),
      messages: init.messages ?? [],
      cwd: init.cwd,
      projectRoot: init.projectRoot ?? init.cwd,
      additionalDirectories: init.additionalDirectories ?? [],
      permissionMode: init.permissionMode ?? 'default',
      sessionId,
      sessionDir: init.sessionDir ?? join(tmpdir(), 'efferent', sessionId),
      denialTracking: { consecutive: 0, total: 0 },
      env: init.env ?? process.env,
      now: init.now ?? Date.now,
      resources: init.resources ?? new SessionResources(),
    },
    agent: { agentId: 'main', depth: 0, isAsync: false },
  };
  if (init.ui) context.ui = init.ui;
  if (init.isReadDenied) context.run.isReadDenied = init.isReadDenied;
  return context;
}

/** How a subagent gets one field of its parent's context. */
export type FieldPolicy =
  | 'share' // the same object: changes are seen by both
  | 'copy' // a snapshot: the child starts from the parent's value, changes stay apart
  | 'fresh' // a new empty value
  | 'link' // a child abort controller that the parent's abort also aborts
  | 'share-unless-async' // shared with a foreground child; absent (no-op) in a background one
  | 'override'; // given by the caller

/**
 * The explicit choice for every field. A new field without an entry here fails the type check,
 * so nobody shares state with a subagent by accident.
 */
export const subagentFieldPolicy = {
  'options.tools': 'override',
  'options.model': 'override',
  'options.mcpClients': 'share',
  'options.debug': 'share',
  'options.isNonInteractive': 'share',
  'options.maxConcurrency': 'share',
  'run.abortController': 'link',
  'run.readFileState': 'copy',
  'run.messages': 'fresh',
  'run.cwd': 'copy',
  'run.projectRoot': 'share',
  'run.additionalDirectories': 'copy',
  'run.permissionMode': 'override',
  'run.sessionId': 'share',
  'run.sessionDir': 'share',
  'run.transcriptPath': 'share',
  'run.denialTracking': 'fresh',
  'run.env': 'share',
  'run.now': 'share',
  'run.resources': 'share',
  'run.isReadDenied': 'share',
  'agent.agentId': 'override',
  'agent.agentType': 'override',
  'agent.parentSystemPrompt': 'override',
  'agent.depth': 'override',
  'agent.isAsync': 'override',
  ui: 'share-unless-async',
} as const satisfies Record<
  `options.${keyof ToolUseOptions}` | `run.${keyof RunState}` | `agent.${keyof AgentContext}` | 'ui',
  FieldPolicy
>;

/** What differs between a parent and the subagent it starts. */
export interface SubagentInit {
  agentId?: string;
  agentType?: string;
  /** Async agents run in the background and get no UI. */
  isAsync?: boolean;
  tools?: readonly AnyTool[];
  model?: string;
  permissionMode?: PermissionMode;
  parentSystemPrompt?: string;
}

/** A context for a subagent, built field by field from {@link subagentFieldPolicy}. */
export function createSubagentContext(parent: ToolUseContext, init: SubagentInit = {}): ToolUseContext {
  const abortController = new AbortController();
  const parentSignal = parent.run.abortController.signal;
  if (parentSignal.aborted) abortController.abort(parentSignal.reason);
  else
    parentSignal.addEventListener('abort', () => abortController.abort(parentSignal.reason), {
      once: true,
      signal: abortController.signal,
    });

  const agent: AgentContext = {
    agentId: init.agentId ?? `agent-${randomUUID().slice(0, 8)}`,
    depth: parent.agent.depth + 1,
    isAsync: init.isAsync ?? false,
  };
  if (init.agentType !== undefined) agent.agentType = init.agentType;
  if (init.parentSystemPrompt !== undefined) agent.parentSystemPrompt = init.parentSystemPrompt;

  const child: ToolUseContext = {
    options: {
      ...parent.options,
      tools: init.tools ?? parent.options.tools,
      model: init.model ?? parent.options.model,
    },
    run: {
      ...parent.run,
      abortController,
      readFileState: cloneReadFileState(parent.run.readFileState),
      messages: [],
      additionalDirectories: [...parent.run.additionalDirectories],
      permissionMode: init.permissionMode ?? parent.run.permissionMode,
      denialTracking: { consecutive: 0, total: 0 },
    },
    agent,
  };
  if (parent.ui && !agent.isAsync) child.ui = parent.ui;
  return child;
}
