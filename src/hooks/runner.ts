import { runCommandHook } from './command-hook.ts';
import { capHookText, type HookResult, interpretCommandExit, parseHookJson } from './hook-output.ts';
import { matchesHookMatcher } from './matcher.ts';
import { emptyHookOutcome, mergeHookResults } from './merge-outcome.ts';
import type {
  CommandHookHandler,
  HookCallback,
  HookEvent,
  HookInput,
  HookOutcome,
  HookRunner,
  HookRunnerConfig,
  HookRunOptions,
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
  | { kind: 'unsupported'; event: HookEvent; matcher?: string; type: string; key: string };

function hookLabel(entry: Entry): string {
  if (entry.kind === 'command') {
    const text = entry.handler.args
      ? [entry.handler.command, ...entry.handler.args].join(' ')
      : entry.handler.command;
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  }
  if (entry.kind === 'callback') return `callback:${entry.callback.name || 'anonymous'}`;
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
            command.shell ?? 'sh',
            command.if ?? null,
          ]);
          entries.push({ ...base, kind: 'command', handler: command, key });
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

async function runCallback(
  entry: Extract<Entry, { kind: 'callback' }>,
  event: HookEvent,
  input: HookInput,
  options: HookRunOptions,
): Promise<HookResult> {
  const hook = hookLabel(entry);
  const seconds = entry.timeout ?? defaultCallbackHookTimeoutSeconds;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), seconds * 1000);
  });
  const aborted = new Promise<'aborted'>((resolve) => {
    if (controller.signal.aborted) resolve('aborted');
    controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    const returned = await Promise.race([
      Promise.resolve().then(() => entry.callback(input, options.toolUseId, { signal: controller.signal })),
      timeout,
      aborted,
    ]);
    if (returned === 'timeout') {
      controller.abort(new Error('hook timed out'));
      const message = `Hook ${hook} timed out after ${seconds}s.`;
      // The Agent SDK blocks a call whose PreToolUse callback times out: no answer is not consent.
      return event === 'PreToolUse'
        ? { hook, blocking: `${message} The call was blocked because the hook could not approve it.` }
        : { hook, error: message };
    }
    if (returned === 'aborted') return { hook, error: `Hook ${hook} was cancelled.` };
    if (returned === undefined || returned === null || returned.async === true) return { hook };
    const parsed = parseHookJson(returned);
    return parsed.ok ? { hook, output: parsed.output } : { hook, error: parsed.message };
  } catch (error) {
    return {
      hook,
      error: capHookText(`Hook ${hook} threw: ${error instanceof Error ? error.message : String(error)}`),
    };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

async function runCommand(
  entry: Extract<Entry, { kind: 'command' }>,
  event: HookEvent,
  input: HookInput,
  options: HookRunOptions,
  config: HookRunnerConfig,
): Promise<HookResult | undefined> {
  const hook = hookLabel(entry);
  const projectDir = config.projectDir ?? input.cwd;
  const seconds = entry.handler.timeout ?? eventTimeoutSeconds[event] ?? defaultCommandHookTimeoutSeconds;
  const runOptions = {
    stdin: JSON.stringify(input),
    cwd: projectDir,
    env: hookEnv(config, projectDir),
    timeoutMs: seconds * 1000,
    signal: options.signal,
  };
  if (entry.handler.async === true) {
    // Fire and forget: the run is still bounded by its timeout and by the signal.
    void runCommandHook(entry.handler, runOptions);
    return undefined;
  }
  const run = await runCommandHook(entry.handler, runOptions);
  if (run.spawnError !== undefined) return { hook, error: `Hook ${hook} could not start: ${run.spawnError}` };
  if (run.timedOut) return { hook, error: `Hook ${hook} timed out after ${seconds}s and was killed.` };
  if (run.aborted) return { hook, error: `Hook ${hook} was cancelled.` };
  return interpretCommandExit(event, hook, run);
}

/**
 * Builds a hook runner from settings-file hooks and in-process callbacks. Every matching hook of an
 * event runs in parallel; identical handlers run once; results merge per Claude Code's contract.
 */
export function createHookRunner(config: HookRunnerConfig = {}): HookRunner {
  const entries = collectEntries(config);

  const matching = (event: HookEvent, matchValue: string | undefined, input?: HookInput): Entry[] => {
    if (config.disabled) return [];
    const seen = new Set<unknown>();
    const selected: Entry[] = [];
    for (const entry of entries) {
      if (entry.event !== event || !matchesHookMatcher(entry.matcher, matchValue)) continue;
      const condition = entry.kind === 'command' ? entry.handler.if : undefined;
      if (
        condition !== undefined &&
        input &&
        config.matchesCondition &&
        typeof input['tool_name'] === 'string'
      ) {
        if (!config.matchesCondition(condition, input['tool_name'], input['tool_input'])) continue;
      }
      if (seen.has(entry.key)) continue;
      seen.add(entry.key);
      selected.push(entry);
    }
    return selected;
  };

  return {
    hasHooks(event, matchValue) {
      return matching(event, matchValue).length > 0;
    },
    async run(event, input, options): Promise<HookOutcome> {
      const selected = matching(event, options.matchValue, input);
      if (selected.length === 0) return emptyHookOutcome();
      const results = await Promise.all(
        selected.map(async (entry): Promise<HookResult | undefined> => {
          if (entry.kind === 'callback') return runCallback(entry, event, input, options);
          if (entry.kind === 'command') return runCommand(entry, event, input, options, config);
          return {
            hook: hookLabel(entry),
            error: `Hook type "${entry.type}" is not supported by efferent; skipped.`,
          };
        }),
      );
      return mergeHookResults(
        event,
        results.filter((result): result is HookResult => result !== undefined),
      );
    },
  };
}
