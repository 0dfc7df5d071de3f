import { spawn } from 'node:child_process';
import type { CommandHookHandler } from './types.ts';

/** What running a command hook produced. */
export interface CommandRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** The command could not be started at all. */
  spawnError?: string;
}

/** Options for {@link runCommandHook}. */
export interface CommandRunOptions {
  /** The JSON written to the hook's stdin. */
  stdin: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Run this instead of the handler's command line (the sandbox wraps it); see sandboxed-hook.ts. */
  spawnAs?: {
    file: string;
    args: string[];
    extraStdio: Array<number | 'ipc'>;
    attach(child: import('node:child_process').ChildProcess): void;
  };
}

/** More than any hook should print; output beyond this is dropped before parsing. */
const maxCapturedBytes = 1024 * 1024;
/** How long to wait for pipes to close after the hook exits (a background grandchild may hold them). */
const closeGraceMs = 250;

export function commandLine(handler: CommandHookHandler): { file: string; args: string[] } {
  if (handler.args) return { file: handler.command, args: [...handler.args] };
  if (handler.shell === 'powershell') {
    return { file: 'pwsh', args: ['-NoProfile', '-NonInteractive', '-Command', handler.command] };
  }
  // Claude Code runs command hooks with bash: `[[ … ]]`, arrays and `source` must work.
  return { file: 'bash', args: ['-c', handler.command] };
}

/**
 * Runs one command hook: JSON on stdin, stdout and stderr captured, killed with its whole process group
 * on timeout or abort. Never rejects.
 */
export function runCommandHook(handler: CommandHookHandler, options: CommandRunOptions): Promise<CommandRun> {
  const { file, args } = options.spawnAs ?? commandLine(handler);
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let exitCode: number | null = null;
    let graceTimer: NodeJS.Timeout | undefined;

    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      // Its own process group, so a timeout kills everything the hook started.
      detached: process.platform !== 'win32',
      stdio: ['pipe', 'pipe', 'pipe', ...(options.spawnAs?.extraStdio ?? [])],
      windowsHide: true,
    });
    options.spawnAs?.attach(child);

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        if (process.platform === 'win32') child.kill('SIGKILL');
        else process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };

    const finish = (spawnError?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      const run: CommandRun = {
        exitCode,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        timedOut,
        aborted,
      };
      if (spawnError !== undefined) run.spawnError = spawnError;
      resolve(run);
    };

    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);

    child.stdout?.on('data', (chunk: Buffer) => {
      if (stdoutBytes < maxCapturedBytes) stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderrBytes < maxCapturedBytes) stderr.push(chunk);
      stderrBytes += chunk.length;
    });
    child.on('error', (error) => finish(error.message));
    child.on('exit', (code) => {
      exitCode = code;
      graceTimer = setTimeout(() => finish(), closeGraceMs);
    });
    child.on('close', (code) => {
      exitCode = code ?? exitCode;
      finish();
    });
    // A hook that never reads stdin closes the pipe early; that is not an error.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.stdin);

    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  });
}
