import type { PreparedCall } from '../core/index.ts';
import { runCommandHook } from './command-hook.ts';
import { runSandboxedCommandHook } from './sandboxed-hook.ts';
import { type HttpHookHandler, httpHookUrlAllowed, runHttpHook } from './http-hook.ts';
import { type HookResult, interpretCommandExit, parseHookJson, unansweredHookResult } from './hook-output.ts';
import { matchesHookMatcher } from './matcher.ts';
import {
  askPromptHookModel,
  defaultPromptHookTimeoutSeconds,
  type PromptHookHandler,
  parsePromptHookAnswer,
  promptHookResult,
  promptHookText,
  undecidedPromptHookResult,
} from './prompt-hook.ts';
import { emptyHookOutcome, mergeHookResults } from './merge-outcome.ts';
import { limitOutcomeText, withinLimit } from './spill-output.ts';
import type {
  CommandHookHandler,
  HookCallback,
  HookEvent,
  HookInput,
  HookJSONOutput,
  HookOutcome,
  HookRunnerConfig,
  HookRunOptions,
  OwnedHookRunner,
} from './types.ts';

/** Default command timeout (seconds), and the shorter defaults some events have. */
export const defaultCommandHookTimeoutSeconds = 600;
const eventTimeoutSeconds: Partial<Record<HookEvent, number>> = {
  UserPromptSubmit: 30,
  MessageDisplay: 10,
  SessionEnd: 1.5,
};
/** Default timeout (seconds) of an in-process hook. */
export const defaultCallbackHookTimeoutSeconds = 60;

/** The events whose handlers' `if` conditions are evaluated; on any other event such a handler never runs. */
export const conditionEvents: ReadonlySet<HookEvent> = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
]);

/** Background hooks still running, and the signal that ends them all. */
interface BackgroundHooks {
  running: Set<Promise<unknown>>;
  lifetime: AbortController;
}

type Entry =
  | { kind: 'command'; event: HookEvent; matcher?: string; handler: CommandHookHandler; key: string }
  | {
      kind: 'callback';
      event: HookEvent;
      matcher?: string;
      callback: HookCallback;
      timeout?: number;
      key: unknown;
    }
  | { kind: 'http'; event: HookEvent; matcher?: string; handler: HttpHookHandler; key: string }
  | { kind: 'prompt'; event: HookEvent; matcher?: string; handler: PromptHookHandler; key: string }
  | { kind: 'unsupported'; event: HookEvent; matcher?: string; type: string; key: string };

function hookLabel(entry: Entry): string {
  if (entry.kind === 'command') {
    const text = entry.handler.args
      ? [entry.handler.command, ...entry.handler.args].join(' ')
      : entry.handler.command;
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  }
  if (entry.kind === 'callback') return `callback:${entry.callback.name || 'anonymous'}`;
  if (entry.kind === 'http') return entry.handler.url;
  if (entry.kind === 'prompt') {
    const text = entry.handler.prompt;
    return `prompt hook "${text.length > 60 ? `${text.slice(0, 57)}...` : text}"`;
  }
  return `${entry.type} hook`;
}

function collectEntries(config: HookRunnerConfig): Entry[] {
  const entries: Entry[] = [];
  for (const [event, groups] of Object.entries(config.hooks ?? {})) {
    for (const group of groups ?? []) {
      for (const handler of group.hooks) {
        const base =
          group.matcher === undefined
            ? { event: event as HookEvent }
            : { event: event as HookEvent, matcher: group.matcher };
        if (handler.type === 'command' && typeof handler['command'] === 'string') {
          const command = handler as CommandHookHandler;
          const key = JSON.stringify([
            'command',
            command.command,
            command.args ?? null,
            command.shell ?? 'bash',
            command.if ?? null,
          ]);
          entries.push({ ...base, kind: 'command', handler: command, key });
        } else if (handler.type === 'http' && typeof handler['url'] === 'string') {
          const http = handler as unknown as HttpHookHandler;
          entries.push({
            ...base,
            kind: 'http',
            handler: http,
            key: JSON.stringify(['http', http.url, http.headers ?? null]),
          });
        } else if (handler.type === 'prompt' && typeof handler['prompt'] === 'string') {
          const prompt = handler as unknown as PromptHookHandler;
          entries.push({
            ...base,
            kind: 'prompt',
            handler: prompt,
            key: JSON.stringify(['prompt', prompt.prompt]),
          });
        } else {
          entries.push({ ...base, kind: 'unsupported', type: handler.type, key: JSON.stringify(handler) });
        }
      }
    }
  }
  for (const hook of config.callbacks ?? []) {
    const entry: Entry = { kind: 'callback', event: hook.event, callback: hook.callback, key: hook.callback };
    if (hook.matcher !== undefined) entry.matcher = hook.matcher;
    if (hook.timeout !== undefined) entry.timeout = hook.timeout;
    entries.push(entry);
  }
  return entries;
}

function hookEnv(config: HookRunnerConfig, projectDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.env ?? process.env))
    if (value !== undefined) env[name] = value;
  env['CLAUDE_PROJECT_DIR'] = projectDir;
  env['EFFERENT_PROJECT_DIR'] = projectDir;
  return env;
}

/**
 * The one rule for a hook that times out, command or in-process: it never approves anything. On
 * PreToolUse it answers `deny` for that hook (the call is not run, and the permission trace names the
 * hook and the timeout); on every other event it is a non-blocking error and the action goes ahead.
 */
export function timedOutHookResult(event: HookEvent, hook: string, message: string): HookResult {
  return unansweredHookResult(event, hook, message, {
    decision: 'deny',
    reason: `${message} A hook that gives no answer never approves a call; raise its "timeout" or make it faster.`,
  });
}

/**
 * The signal an in-process hook is handed, made only when the hook reads it: it aborts when the run
 * is cancelled or the hook times out. Most callbacks answer at once and never look at it.
 */
class CallbackSignal {
  #controller: AbortController | undefined;
  #onParentAbort: (() => void) | undefined;
  readonly #parent: AbortSignal;
  constructor(parent: AbortSignal) {
    this.#parent = parent;
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get controller(): AbortController {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#parent.aborted) controller.abort(this.#parent.reason);
      else {
        this.#onParentAbort = () => controller.abort(this.#parent.reason);
        this.#parent.addEventListener('abort', this.#onParentAbort, { once: true });
      }
    }
    return this.#controller;
  }
  /** Stops following the run's signal once the hook has answered (the run outlives the hook). */
  release(): void {
    if (this.#onParentAbort) this.#parent.removeEventListener('abort', this.#onParentAbort);
    this.#onParentAbort = undefined;
  }
}

function callbackResult(hook: string, returned: HookJSONOutput | null | undefined): HookResult {
  if (returned === undefined || returned === null || returned.async === true) return { hook };
  const parsed = parseHookJson(returned);
  return parsed.ok ? { hook, output: parsed.output } : { hook, error: parsed.message };
}

function thrownResult(hook: string, error: unknown): HookResult {
  return { hook, error: `Hook ${hook} threw: ${error instanceof Error ? error.message : String(error)}` };
}

/**
 * Runs an in-process hook. A callback that answers synchronously is done at once; one that returns
 * a promise races its timeout and the run's cancellation (on timeout its signal aborts and the call
 * goes on as the timeout rule says).
 */
function runCallback(
  entry: Extract<Entry, { kind: 'callback' }>,
  event: HookEvent,
  input: HookInput,
  options: HookRunOptions,
): HookResult | Promise<HookResult> {
  const hook = hookLabel(entry);
  if (options.signal.aborted) return { hook, error: `Hook ${hook} was cancelled.` };
  const handle = new CallbackSignal(options.signal);
  let returned: ReturnType<HookCallback>;
  try {
    returned = entry.callback(input, options.toolUseId, handle);
  } catch (error) {
    handle.release();
    return thrownResult(hook, error);
  }
  if (!isThenable(returned)) {
    handle.release();
    return callbackResult(hook, returned);
  }
  return settleCallback(hook, event, entry.timeout ?? defaultCallbackHookTimeoutSeconds, handle, returned);
}

function isThenable(value: unknown): value is PromiseLike<HookJSONOutput | undefined> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

async function settleCallback(
  hook: string,
  event: HookEvent,
  seconds: number,
  handle: CallbackSignal,
  pending: PromiseLike<HookJSONOutput | undefined>,
): Promise<HookResult> {
  const controller = handle.controller;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), seconds * 1000);
  });
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (controller.signal.aborted) resolve('aborted');
    else controller.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const returned = await Promise.race([pending, timeout, aborted]);
    if (returned === 'timeout') {
      controller.abort(new Error('hook timed out'));
      return timedOutHookResult(event, hook, `Hook ${hook} timed out after ${seconds}s.`);
    }
    if (returned === 'aborted') return { hook, error: `Hook ${hook} was cancelled.` };
    return callbackResult(hook, returned);
  } catch (error) {
    return thrownResult(hook, error);
  } finally {
    clearTimeout(timer);
    if (onAbort) controller.signal.removeEventListener('abort', onAbort);
    handle.release();
  }
}

async function runCommand(
  entry: Extract<Entry, { kind: 'command' }>,
  event: HookEvent,
  input: HookInput,
  options: HookRunOptions,
  config: HookRunnerConfig,
  background: BackgroundHooks,
): Promise<HookResult | undefined> {
  const hook = hookLabel(entry);
  const projectDir = config.projectDir ?? input.cwd;
  const seconds = entry.handler.timeout ?? eventTimeoutSeconds[event] ?? defaultCommandHookTimeoutSeconds;
  const runOptions = {
    stdin: JSON.stringify(input),
    cwd: projectDir,
    env: { ...hookEnv(config, projectDir), ...options.env },
    timeoutMs: seconds * 1000,
    signal: options.signal,
  };
  const start = (opts: typeof runOptions) =>
    config.sandbox
      ? runSandboxedCommandHook(entry.handler, opts, config.sandbox)
      : runCommandHook(entry.handler, opts);
  if (entry.handler.async === true) {
    if (background.lifetime.signal.aborted) {
      return { hook, error: `Background hook ${hook} was not started: the session has ended.` };
    }
    // Fire and forget: the call does not wait for it, so the call's own signal does not end it; its
    // timeout and the runner's disposal do.
    const run = start({ ...runOptions, signal: background.lifetime.signal });
    background.running.add(run);
    void run.finally(() => background.running.delete(run));
    return undefined;
  }
  const run = await start(runOptions);
  if (run.spawnError !== undefined) return { hook, error: `Hook ${hook} could not start: ${run.spawnError}` };
  if (run.timedOut)
    return timedOutHookResult(event, hook, `Hook ${hook} timed out after ${seconds}s and was killed.`);
  if (run.aborted) return { hook, error: `Hook ${hook} was cancelled.` };
  return interpretCommandExit(event, hook, run);
}

async function runHttp(
  entry: Extract<Entry, { kind: 'http' }>,
  event: HookEvent,
  input: HookInput,
  options: HookRunOptions,
  config: HookRunnerConfig,
): Promise<HookResult> {
  const hook = hookLabel(entry);
  if (!httpHookUrlAllowed(entry.handler.url, config.allowedHttpHookUrls))
    return {
      hook,
      error: `Hook ${hook} was not run: its URL is not in allowedHttpHookUrls. Add a matching pattern to the settings to allow it.`,
    };
  const seconds = entry.handler.timeout ?? eventTimeoutSeconds[event] ?? defaultCommandHookTimeoutSeconds;
  const result = await runHttpHook(entry.handler, hook, {
    body: JSON.stringify(input),
    env: { ...(config.env ?? process.env), ...options.env },
    timeoutMs: seconds * 1000,
    signal: options.signal,
  });
  return result === 'timeout'
    ? timedOutHookResult(event, hook, `Hook ${hook} timed out after ${seconds}s.`)
    : result;
}

/**
 * A prompt hook: the session's provider decides. Without one (`check`, `call`) the hook cannot run:
 * that is said once, and a PreToolUse call is asked about instead of decided.
 */
async function runPrompt(
  entry: Extract<Entry, { kind: 'prompt' }>,
  event: HookEvent,
  input: HookInput,
  options: HookRunOptions,
  config: HookRunnerConfig,
  warnOnce: (key: string) => boolean,
): Promise<HookResult | undefined> {
  const hook = hookLabel(entry);
  const provider = config.promptProvider?.();
  if (!provider) {
    const message = `Prompt hook ${hook} was skipped: prompt hooks need a model, and this command runs without one (efferent run has one).`;
    const shown = warnOnce('prompt-without-model');
    if (event === 'PreToolUse') return undecidedPromptHookResult(event, hook, message);
    return shown ? { hook, error: `${message} (Shown once.)` } : undefined;
  }
  const seconds = entry.handler.timeout ?? defaultPromptHookTimeoutSeconds;
  let text: string | 'timeout';
  try {
    text = await askPromptHookModel(provider, promptHookText(entry.handler.prompt, input), {
      signal: options.signal,
      timeoutMs: seconds * 1000,
    });
  } catch (error) {
    if (options.signal.aborted) return { hook, error: `Hook ${hook} was cancelled.` };
    const reason = error instanceof Error ? error.message : String(error);
    return undecidedPromptHookResult(event, hook, `Prompt hook ${hook} failed: ${reason}.`);
  }
  if (text === 'timeout') return timedOutHookResult(event, hook, `Hook ${hook} timed out after ${seconds}s.`);
  const answer = parsePromptHookAnswer(text);
  if ('unreadable' in answer)
    return undecidedPromptHookResult(
      event,
      hook,
      `Prompt hook ${hook} gave no decision: ${answer.unreadable}.`,
    );
  return promptHookResult(event, hook, answer);
}

/** Asks the condition matcher; one that throws counts as a match, so a guard still runs. */
function conditionHolds(
  config: HookRunnerConfig,
  condition: string,
  input: HookInput,
  prepared: PreparedCall | undefined,
): boolean {
  const matcher = config.matchesCondition;
  const toolName = input['tool_name'];
  if (!matcher || typeof toolName !== 'string') return true;
  try {
    return prepared === undefined
      ? matcher(condition, toolName, input['tool_input'], input)
      : matcher(condition, toolName, input['tool_input'], input, prepared);
  } catch {
    return true;
  }
}

/**
 * Whether a hook is for this event and matches its value; an `if` condition only counts for the
 * events that have one (whether it holds is asked of the call itself).
 */
function mayRun(entry: Entry, event: HookEvent, matchValue: string | undefined): boolean {
  if (entry.event !== event || !matchesHookMatcher(entry.matcher, matchValue)) return false;
  return entry.kind !== 'command' || entry.handler.if === undefined || conditionEvents.has(event);
}

/**
 * Builds a hook runner from settings-file hooks and in-process callbacks. Every matching hook of an
 * event runs in parallel; identical handlers run once; results merge per Claude Code's contract;
 * output strings over 10,000 characters spill to `outputDir`. Dispose it to end background hooks.
 */
export function createHookRunner(config: HookRunnerConfig = {}): OwnedHookRunner {
  const entries = collectEntries(config);
  const background: BackgroundHooks = { running: new Set(), lifetime: new AbortController() };
  const warnedTypes = new Set<string>();

  const matching = (
    event: HookEvent,
    matchValue: string | undefined,
    input?: HookInput,
    prepared?: PreparedCall,
  ): Entry[] => {
    if (config.disabled) return [];
    const selected: Entry[] = [];
    for (const entry of entries) {
      if (!mayRun(entry, event, matchValue)) continue;
      const condition = entry.kind === 'command' ? entry.handler.if : undefined;
      if (condition !== undefined && input && !conditionHolds(config, condition, input, prepared)) continue;
      // Identical handlers run once (an event has a handful of hooks: a scan beats a set per call).
      if (selected.some((chosen) => chosen.key === entry.key)) continue;
      selected.push(entry);
    }
    return selected;
  };

  const startHook = (
    entry: Entry,
    event: HookEvent,
    input: HookInput,
    options: HookRunOptions,
  ): HookResult | Promise<HookResult | undefined> | undefined => {
    try {
      if (entry.kind === 'callback') return runCallback(entry, event, input, options);
      if (entry.kind === 'command') return runCommand(entry, event, input, options, config, background);
      if (entry.kind === 'http') return runHttp(entry, event, input, options, config);
      if (entry.kind === 'prompt')
        return runPrompt(entry, event, input, options, config, (key) => {
          if (warnedTypes.has(key)) return false;
          warnedTypes.add(key);
          return true;
        });
    } catch (error) {
      return Promise.reject(error);
    }
    // Said once per handler type for the runner's life, not at every tool call.
    if (warnedTypes.has(entry.type)) return undefined;
    warnedTypes.add(entry.type);
    return {
      hook: hookLabel(entry),
      error: `Hook type "${entry.type}" is not supported by efferent; such hooks are skipped (this is shown once). Use a command or http hook instead.`,
    };
  };

  const dispose = async (): Promise<void> => {
    background.lifetime.abort(new Error('the hook runner was disposed'));
    await Promise.allSettled([...background.running]);
  };

  return {
    get backgroundCount() {
      return background.running.size;
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
    hasHooks(event, matchValue) {
      return !config.disabled && entries.some((entry) => mayRun(entry, event, matchValue));
    },
    async run(event, input, options): Promise<HookOutcome> {
      const selected = matching(event, options.matchValue, input, options.prepared);
      if (selected.length === 0) return emptyHookOutcome();
      // Every hook starts now, in parallel; in-process callbacks that answer at once are not awaited.
      const started: Array<HookResult | Promise<HookResult | undefined> | undefined> = [];
      let pending = false;
      for (const entry of selected) {
        const result = startHook(entry, event, input, options);
        if (result instanceof Promise) pending = true;
        started.push(result);
      }
      const results = pending ? await Promise.all(started) : (started as Array<HookResult | undefined>);
      const merged = mergeHookResults(
        event,
        results.filter((result): result is HookResult => result !== undefined),
      );
      // Texts over the limit spill to files; the usual short outcome is returned as it is.
      return withinLimit(merged) ? merged : limitOutcomeText(merged, config.outputDir);
    },
  };
}
