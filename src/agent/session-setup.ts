import { stat } from 'node:fs/promises';
import {
  type AnyTool,
  type AskUser,
  EfferentError,
  ErrorCodes,
  errorMessage,
  type PermissionPrompt,
  type PermissionPromptAnswer,
} from '../core/index.ts';

/** An `askUser` answer that defers the decision: the run stops and can resume with the answer later. */
export interface AskLaterAnswer {
  choice: 'ask-later';
}

/** Every answer a session's `askUser` may give. */
export type SessionAskAnswer = PermissionPromptAnswer | AskLaterAnswer;

/**
 * The session's permission prompt. Answer `allow-once`, `allow-session` (adds session rules),
 * `allow-always` (also saves them, see `persistRules`), `deny` (with feedback for the model), or
 * `ask-later` to stop `session.run` and resume it with the answer later, even in another process.
 */
export type SessionAskUser = (prompt: PermissionPrompt, signal: AbortSignal) => Promise<SessionAskAnswer>;

/** An `askUser` that defers every prompt: `session.run` stops with a serialisable pending state. */
export const askLater: SessionAskUser = async () => ({ choice: 'ask-later' });

/** A tool by name (a built-in or its alias) or a tool object of your own. */
export type ToolChoice = string | AnyTool;

/** The working directory must exist and be a directory before anything runs in it. */
export async function checkWorkingDirectory(cwd: string): Promise<void> {
  if (typeof cwd !== 'string' || cwd === '')
    throw new EfferentError(ErrorCodes.usage, 'createSession needs `cwd`: the directory the tools work in.');
  let isDirectory = false;
  try {
    isDirectory = (await stat(cwd)).isDirectory();
  } catch (error) {
    throw new EfferentError(
      ErrorCodes.usage,
      `createSession: the working directory ${cwd} cannot be used (${errorMessage(error)}). Pass an existing directory as \`cwd\`.`,
    );
  }
  if (!isDirectory)
    throw new EfferentError(
      ErrorCodes.usage,
      `createSession: the working directory ${cwd} is not a directory. Pass an existing directory as \`cwd\`.`,
    );
}

/**
 * The session's own tools (not MCP): the built-ins chosen by `tools` (all of them when absent) and
 * the custom tools. Two tools answering to one name are refused: a custom tool named like a built-in
 * replaces it only when the built-in is left out of `tools`.
 */
export function chooseTools(
  builtIns: readonly AnyTool[],
  choice: readonly ToolChoice[] | undefined,
  extra: readonly AnyTool[],
): AnyTool[] {
  const chosen: AnyTool[] = [];
  if (choice === undefined) chosen.push(...builtIns);
  for (const item of choice ?? []) {
    if (typeof item !== 'string') {
      chosen.push(item);
      continue;
    }
    const tool = builtIns.find((candidate) => candidate.name === item || candidate.aliases.includes(item));
    if (!tool)
      throw new EfferentError(
        ErrorCodes.usage,
        `createSession: no built-in tool is named ${item}. Built-ins: ${builtIns.map((candidate) => candidate.name).join(', ')}; pass your own tools as objects.`,
      );
    chosen.push(tool);
  }
  chosen.push(...extra);
  const owner = new Map<string, AnyTool>();
  for (const tool of chosen) {
    for (const name of [tool.name, ...tool.aliases]) {
      const earlier = owner.get(name);
      if (earlier && earlier !== tool) {
        const builtIn = builtIns.includes(earlier) ? earlier : builtIns.includes(tool) ? tool : undefined;
        throw new EfferentError(
          ErrorCodes.usage,
          builtIn
            ? `createSession: your tool ${name} has the name of the built-in ${builtIn.name}. Rename it, or replace the built-in by listing the tools you want without it (\`tools: [...]\`).`
            : `createSession: two tools are named ${name}. Give each tool its own name.`,
        );
      }
      owner.set(name, tool);
    }
  }
  return [...new Set(chosen)];
}

/**
 * Routes the session's prompts: an answer given in advance for a call (resume, a framework's own
 * approval) first, then the caller's `askUser`; "ask later" is recorded for the running `run`.
 */
export function createPromptRouter(ask: SessionAskUser | undefined) {
  const presets = new Map<string, PermissionPromptAnswer>();
  let onDeferred: ((prompt: PermissionPrompt) => void) | undefined;
  const deferred = new Map<string, PermissionPrompt>();
  const takePreset = (toolUseId: string) => {
    const preset = presets.get(toolUseId);
    presets.delete(toolUseId);
    return preset;
  };
  const withCaller: AskUser | undefined = ask
    ? async (prompt, signal) => {
        const preset = takePreset(prompt.toolUseId);
        if (preset) return preset;
        const answer = await ask(prompt, signal);
        if (answer.choice !== 'ask-later') return answer;
        deferred.set(prompt.toolUseId, prompt);
        onDeferred?.(prompt);
        return {
          choice: 'deny',
          feedback: 'approval was deferred; the call waits for an answer given later. Do not retry it now.',
        };
      }
    : undefined;
  // Without a caller's prompt, only calls answered in advance have someone to answer them.
  const presetsOnly: AskUser = async (prompt) =>
    takePreset(prompt.toolUseId) ?? { choice: 'deny', feedback: 'no one is available to approve it' };
  return {
    /** The prompt the resolver uses now; undefined means nobody can answer (the resolver explains). */
    current(): AskUser | undefined {
      return withCaller ?? (presets.size > 0 ? presetsOnly : undefined);
    },
    preset(toolUseId: string, answer: PermissionPromptAnswer): void {
      presets.set(toolUseId, answer);
    },
    forget(toolUseId: string): void {
      presets.delete(toolUseId);
    },
    beginRun(listener: (prompt: PermissionPrompt) => void) {
      deferred.clear();
      onDeferred = listener;
      const given: string[] = [];
      return {
        deferred: deferred as ReadonlyMap<string, PermissionPrompt>,
        preset(toolUseId: string, answer: PermissionPromptAnswer) {
          given.push(toolUseId);
          presets.set(toolUseId, answer);
        },
        end() {
          if (onDeferred === listener) onDeferred = undefined;
          for (const toolUseId of given) presets.delete(toolUseId);
        },
      };
    },
  };
}

/** Sessions still open when the event loop empties: disposed on `beforeExit`, so the process ends. */
const openSessions = new Set<() => Promise<void>>();
let listening = false;

function disposeOpenSessions(): void {
  const pending = [...openSessions];
  openSessions.clear();
  for (const dispose of pending) dispose().catch(() => {});
}

/** Registers a session's dispose for `beforeExit`; returns the function that unregisters it. */
export function disposeBeforeExit(dispose: () => Promise<void>): () => void {
  openSessions.add(dispose);
  if (!listening) {
    listening = true;
    process.on('beforeExit', disposeOpenSessions);
  }
  return () => {
    openSessions.delete(dispose);
  };
}
