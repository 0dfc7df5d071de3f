import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { relative } from 'node:path';
import { createBeneath } from '../../../core/session-files.ts';
import { defaultKillGraceMs, signalProcessGroup, terminateProcessGroup } from './process-group.ts';

/** The reference kills a command whose output passes 5 GB; the file is the only buffer. */
export const defaultMaxOutputBytes = 5 * 1024 ** 3;

/** How often the output files are measured (ms): bounds how far past the cap a fast writer gets. */
export const defaultOutputPollMs = 100;

/** Why efferent ended a process itself. */
export type StopReason = 'aborted' | 'timeout' | 'output-limit' | 'stopped' | 'disposed';

/** How a process ended. */
export interface ShellExit {
  /** The exit status; null when a signal ended it or it never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Set when efferent stopped the process (first reason wins). */
  stopReason?: StopReason;
  /** Set when the process could not be started at all. */
  spawnError?: string;
  durationMs: number;
}

/** What to run and where its output goes. */
export interface ShellRunOptions {
  /** The program: `bash`, or `bwrap` wrapping bash. */
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  stdoutPath: string;
  stderrPath: string;
  maxOutputBytes?: number;
  pollIntervalMs?: number;
  killGraceMs?: number;
  /** Descriptors the child gets as fd 3, 4, … (e.g. bwrap's seccomp program); the caller closes them. */
  inheritedFds?: readonly number[];
  /**
   * The directory efferent owns that holds the output files (the session folder): they are then
   * created fresh below it without following any link, so nothing planted there redirects them.
   */
  outputRoot?: string;
  /**
   * Spawn with an IPC channel (after the inherited descriptors) and hand the child to this function
   * before anything else: the sandbox's network relay talks to efferent's proxy over it.
   */
  onSpawnWithIpc?: (child: ChildProcess) => void;
}

/** Creates an output file: fresh and link-free below `root` when given, else never through a final link. */
function createOutputFile(path: string, root: string | undefined): number {
  if (root !== undefined) {
    const below = relative(root, path);
    if (below !== '' && !below.startsWith('..')) return createBeneath(root, below);
  }
  return openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o600,
  );
}

/**
 * One process in its own process group, writing straight into two files (no pipes through this
 * process, so output costs nothing here and survives a move to the background). A poller measures
 * the files to enforce the size cap and to tell listeners that output grew.
 */
export class ShellRun {
  readonly pid: number | undefined;
  readonly startedAt: number;
  readonly stdoutPath: string;
  readonly stderrPath: string;
  /** Settles once the process has exited and its leftover group members were killed. */
  readonly exited: Promise<ShellExit>;

  #running = true;
  #stopReason: StopReason | undefined;
  #outputBytes = 0;
  readonly #listeners = new Set<(bytes: number) => void>();
  readonly #poller: NodeJS.Timeout;
  readonly #killGraceMs: number;

  constructor(options: ShellRunOptions) {
    this.startedAt = Date.now();
    this.stdoutPath = options.stdoutPath;
    this.stderrPath = options.stderrPath;
    this.#killGraceMs = options.killGraceMs ?? defaultKillGraceMs;
    const stdoutFd = createOutputFile(options.stdoutPath, options.outputRoot);
    let stderrFd: number;
    try {
      stderrFd = createOutputFile(options.stderrPath, options.outputRoot);
    } catch (error) {
      closeSync(stdoutFd);
      throw error;
    }
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(options.file, [...options.args], {
        cwd: options.cwd,
        env: options.env,
        // detached = setsid(): its own session and process group, and no controlling terminal,
        // so the whole tree can be signalled and nothing can inject input into our terminal.
        detached: true,
        stdio: [
          'ignore',
          stdoutFd,
          stderrFd,
          ...(options.inheritedFds ?? []),
          ...(options.onSpawnWithIpc ? (['ipc'] as const) : []),
        ],
      });
      options.onSpawnWithIpc?.(child);
    } finally {
      closeSync(stdoutFd);
      closeSync(stderrFd);
    }
    this.pid = child.pid;
    const maxOutputBytes = options.maxOutputBytes ?? defaultMaxOutputBytes;
    this.#poller = setInterval(
      () => void this.#poll(maxOutputBytes),
      options.pollIntervalMs ?? defaultOutputPollMs,
    );
    this.#poller.unref();

    this.exited = new Promise<ShellExit>((resolve) => {
      let settled = false;
      const finish = (exit: Omit<ShellExit, 'durationMs' | 'stopReason'>) => {
        if (settled) return;
        settled = true;
        this.#running = false;
        clearInterval(this.#poller);
        // Anything the command left running in its group (`cmd &`) ends with it.
        if (this.pid !== undefined) signalProcessGroup(this.pid, 'SIGKILL');
        const result: ShellExit = { ...exit, durationMs: Date.now() - this.startedAt };
        if (this.#stopReason) result.stopReason = this.#stopReason;
        void this.#poll(Number.POSITIVE_INFINITY).finally(() => resolve(result));
      };
      child.once('error', (error) => finish({ exitCode: null, signal: null, spawnError: error.message }));
      child.once('exit', (exitCode, signal) => finish({ exitCode, signal }));
    });
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.#running;
  }

  /** Bytes written to both files so far, as of the last measurement. */
  get outputBytes(): number {
    return this.#outputBytes;
  }

  /** Calls `listener` whenever the output grew; returns the unsubscribe function. */
  onOutput(listener: (bytes: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the whole group (SIGTERM, then SIGKILL after the grace period) and waits for the exit. */
  async stop(reason: StopReason): Promise<ShellExit> {
    if (this.#running && this.pid !== undefined) {
      this.#stopReason ??= reason;
      await terminateProcessGroup(this.pid, this.exited, this.#killGraceMs);
    }
    return this.exited;
  }

  async #poll(maxOutputBytes: number): Promise<void> {
    const sizes = await Promise.all(
      [this.stdoutPath, this.stderrPath].map((path) =>
        lstat(path).then(
          (info) => info.size,
          () => 0,
        ),
      ),
    );
    const total = sizes.reduce((sum, size) => sum + size, 0);
    if (total === this.#outputBytes) return;
    this.#outputBytes = total;
    for (const listener of this.#listeners) listener(total);
    if (total > maxOutputBytes && this.#running) void this.stop('output-limit');
  }
}
