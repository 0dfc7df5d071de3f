import type { BackgroundTaskManager } from './background-tasks.ts';
import { readTextTail } from './output-files.ts';
import { type ShellExit, ShellRun, type ShellRunOptions } from './shell-run.ts';

/** What a running shell command reports while it runs. */
export interface ShellProgress {
  type: 'shell_progress';
  /** The last lines of stdout so far. */
  output: string;
  elapsedMs: number;
  totalBytes: number;
}

/** One command to run in the foreground, possibly handed to the background. */
export interface RunCommandRequest extends ShellRunOptions {
  /** The id the command's files carry; a background task keeps it. */
  id: string;
  command: string;
  description?: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** `immediately` = run_in_background; `on-timeout` = keep running past the timeout; `never` = kill. */
  background: 'immediately' | 'on-timeout' | 'never';
  /** Needed for either kind of background run; without it the command is killed at the timeout. */
  tasks?: BackgroundTaskManager;
  onProgress?: (progress: ShellProgress) => void;
  /** Default 1000 ms. */
  progressIntervalMs?: number;
  /** Runs once the process has exited, wherever it ran (e.g. to remove sandbox placeholders). */
  onExit?: () => void;
}

/** How the foreground part of a command ended. */
export type RunCommandOutcome =
  | { kind: 'exited'; exit: ShellExit }
  | { kind: 'background'; taskId: string; reason: 'requested' | 'timeout' }
  | { kind: 'interrupted'; exit: ShellExit; reason: 'aborted' | 'timeout' };

const progressTailBytes = 4096;
const progressTailLines = 10;

/**
 * Runs a command and waits for it, up to its timeout. On abort the whole process group is killed;
 * at the timeout it is either moved to the background (the model reads it with TaskOutput) or killed.
 */
export async function runCommand(request: RunCommandRequest): Promise<RunCommandOutcome> {
  if (request.signal.aborted) {
    // Nothing ran, but whatever was prepared for the run (sandbox placeholders) is released.
    request.onExit?.();
    return {
      kind: 'interrupted',
      reason: 'aborted',
      exit: { exitCode: null, signal: null, stopReason: 'aborted', durationMs: 0 },
    };
  }
  const run = new ShellRun(request);
  void run.exited.then(() => request.onExit?.());
  const { tasks } = request;
  const details =
    request.description === undefined
      ? { command: request.command }
      : { command: request.command, description: request.description };
  if (request.background === 'immediately' && tasks) {
    tasks.adopt(request.id, run, details);
    return { kind: 'background', taskId: request.id, reason: 'requested' };
  }

  let progressTimer: NodeJS.Timeout | undefined;
  if (request.onProgress) {
    const report = request.onProgress;
    let lastBytes = -1;
    progressTimer = setInterval(() => {
      const totalBytes = run.outputBytes;
      if (totalBytes === lastBytes && totalBytes > 0) return;
      lastBytes = totalBytes;
      void readTextTail(run.stdoutPath, progressTailBytes).then((text) => {
        if (!run.running) return;
        const output = text.split('\n').slice(-progressTailLines).join('\n');
        report({ type: 'shell_progress', output, elapsedMs: Date.now() - run.startedAt, totalBytes });
      });
    }, request.progressIntervalMs ?? 1000);
    progressTimer.unref();
  }

  let timeoutTimer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const outcome = await Promise.race<'exited' | 'timeout' | 'aborted'>([
    run.exited.then(() => 'exited' as const),
    new Promise((resolve) => {
      timeoutTimer = setTimeout(() => resolve('timeout'), request.timeoutMs);
    }),
    new Promise((resolve) => {
      onAbort = () => resolve('aborted');
      request.signal.addEventListener('abort', onAbort, { once: true });
    }),
  ]);
  clearTimeout(timeoutTimer);
  clearInterval(progressTimer);
  if (onAbort) request.signal.removeEventListener('abort', onAbort);

  if (outcome === 'exited') return { kind: 'exited', exit: await run.exited };
  if (outcome === 'timeout' && request.background === 'on-timeout' && tasks && run.running) {
    tasks.adopt(request.id, run, details);
    return { kind: 'background', taskId: request.id, reason: 'timeout' };
  }
  const exit = await run.stop(outcome === 'aborted' ? 'aborted' : 'timeout');
  // It may have exited on its own in the same instant; then it was not interrupted.
  if (exit.stopReason === undefined) return { kind: 'exited', exit };
  return { kind: 'interrupted', exit, reason: outcome === 'aborted' ? 'aborted' : 'timeout' };
}

/** The run's environment without unset entries, as `spawn` wants it, made non-interactive (see below). */
export function childEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  return { ...result, ...nonInteractive };
}

/**
 * Nobody can type into a tool's terminal: an editor (`git commit` without `-m`, `crontab -e`) would
 * wait forever and paint escape codes into the output, and git would prompt for credentials. `true`
 * as the editor accepts the file unchanged, so git stops with "empty commit message" instead.
 */
const nonInteractive: Readonly<Record<string, string>> = {
  GIT_EDITOR: 'true',
  EDITOR: 'true',
  VISUAL: 'true',
  GIT_TERMINAL_PROMPT: '0',
};

/**
 * The environment bash starts with. `CDPATH` is removed, so `cd name` goes to `./name` and nowhere
 * else (the permission engine resolves `cd` operands against the working directory only), and
 * `PWD` is the physical directory the shell starts in, so bash's logical directory, which `cd ..`
 * folds against, is the physical one the engine resolves from. `OLDPWD` (`cd -`) is removed too.
 */
export function shellEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  physicalCwd: string,
): Record<string, string> {
  const result = childEnvironment(env);
  delete result['CDPATH'];
  delete result['OLDPWD'];
  result['PWD'] = physicalCwd;
  return result;
}
