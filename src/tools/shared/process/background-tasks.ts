import { randomInt } from 'node:crypto';
import {
  EfferentError,
  type SessionResource,
  type SessionResourceKey,
  type SessionResources,
} from '../../../core/index.ts';
import { fileSize, readBytes } from './output-files.ts';
import type { ShellExit, ShellRun } from './shell-run.ts';

/** Where a background task is in its life. */
export type BackgroundTaskStatus = 'running' | 'completed' | 'failed' | 'killed';

/** A background task as the model and a UI see it. */
export interface BackgroundTaskInfo {
  id: string;
  command: string;
  description?: string;
  status: BackgroundTaskStatus;
  /** Null while running and when a signal ended it. */
  exitCode: number | null;
  startedAt: number;
  endedAt?: number;
  stdoutPath: string;
  stderrPath: string;
}

/** Output a task wrote since the previous read. */
export interface TaskOutputChunk {
  stdout: string;
  stderr: string;
  /** True when more unread output remains (the next read continues from here). */
  more: boolean;
}

/** How waiting for a task ended. */
export type TaskWaitOutcome = 'finished' | 'timeout' | 'aborted';

interface Entry {
  info: BackgroundTaskInfo;
  run: ShellRun;
  /** Read cursors in bytes, so each read returns only what is new. */
  stdoutOffset: number;
  stderrOffset: number;
}

const idAlphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

/** A new id for a shell command: `b` and seven base-36 characters. */
export function newShellId(): string {
  let id = 'b';
  for (let index = 0; index < 7; index += 1) id += idAlphabet[randomInt(idAlphabet.length)];
  return id;
}

/** The status a finished process gets. */
export function statusFromExit(exit: ShellExit): BackgroundTaskStatus {
  if (exit.stopReason !== undefined || exit.signal !== null) return 'killed';
  return exit.exitCode === 0 ? 'completed' : 'failed';
}

/**
 * The session's background shells: commands started with `run_in_background` and foreground
 * commands moved there by a timeout. Output stays in the files the process writes; reads advance a
 * per-task cursor.
 */
export class BackgroundTaskManager implements SessionResource {
  readonly #tasks = new Map<string, Entry>();
  readonly #listeners = new Set<(task: BackgroundTaskInfo) => void>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Takes over a running process; its output files and id stay as they are. */
  adopt(id: string, run: ShellRun, details: { command: string; description?: string }): BackgroundTaskInfo {
    const info: BackgroundTaskInfo = {
      id,
      command: details.command,
      status: 'running',
      exitCode: null,
      startedAt: run.startedAt,
      stdoutPath: run.stdoutPath,
      stderrPath: run.stderrPath,
    };
    if (details.description !== undefined) info.description = details.description;
    this.#tasks.set(id, { info, run, stdoutOffset: 0, stderrOffset: 0 });
    void run.exited.then((exit) => {
      info.status = statusFromExit(exit);
      info.exitCode = exit.exitCode;
      info.endedAt = this.#now();
      this.#emit(info);
    });
    this.#emit(info);
    return { ...info };
  }

  /** A snapshot of one task. */
  get(id: string): BackgroundTaskInfo | undefined {
    const entry = this.#tasks.get(id);
    return entry ? { ...entry.info } : undefined;
  }

  /** Every task, oldest first, for a UI. */
  list(): BackgroundTaskInfo[] {
    return [...this.#tasks.values()].map((entry) => ({ ...entry.info }));
  }

  /** Calls `listener` when a task starts or ends; returns the unsubscribe function. */
  subscribe(listener: (task: BackgroundTaskInfo) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Output written since the last read, at most `maxChars` characters per stream. */
  async readNew(id: string, maxChars: number): Promise<TaskOutputChunk> {
    const entry = this.#require(id);
    const stdout = await readFrom(entry.info.stdoutPath, entry.stdoutOffset, maxChars);
    const stderr = await readFrom(entry.info.stderrPath, entry.stderrOffset, maxChars);
    entry.stdoutOffset += stdout.bytes;
    entry.stderrOffset += stderr.bytes;
    return { stdout: stdout.text, stderr: stderr.text, more: stdout.more || stderr.more };
  }

  /** Waits until the task ends, the timeout passes, or `signal` aborts. */
  async waitFor(id: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskWaitOutcome> {
    const entry = this.#require(id);
    if (!entry.run.running) {
      await entry.run.exited;
      return 'finished';
    }
    if (signal?.aborted) return 'aborted';
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const outcome = await Promise.race<TaskWaitOutcome>([
      entry.run.exited.then(() => 'finished' as const),
      new Promise<TaskWaitOutcome>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      }),
      new Promise<TaskWaitOutcome>((resolve) => {
        onAbort = () => resolve('aborted');
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // Let the exit handler record the final status before callers read it.
    if (outcome === 'finished') await Promise.resolve();
    return outcome;
  }

  /** Stops a task's whole process group (SIGTERM, then SIGKILL) and returns its final state. */
  async stop(id: string): Promise<BackgroundTaskInfo> {
    const entry = this.#require(id);
    await entry.run.stop('stopped');
    await Promise.resolve();
    return { ...entry.info };
  }

  /** Stops every running task; called when the session ends. */
  async dispose(): Promise<void> {
    await Promise.all([...this.#tasks.values()].map((entry) => entry.run.stop('disposed')));
    this.#listeners.clear();
  }

  #require(id: string): Entry {
    const entry = this.#tasks.get(id);
    if (!entry) throw unknownTaskError(id, [...this.#tasks.keys()]);
    return entry;
  }

  #emit(info: BackgroundTaskInfo): void {
    for (const listener of this.#listeners) listener({ ...info });
  }
}

/** The error for an id the session does not know; the message lists the ids that exist. */
function unknownTaskError(id: string, known: readonly string[]): EfferentError {
  return new EfferentError(
    'validation_failed',
    known.length === 0
      ? `No background task with id "${id}": this session has none.`
      : `No background task with id "${id}". Known ids: ${known.join(', ')}.`,
  );
}

/** The session's background task manager. */
export const backgroundTasksKey: SessionResourceKey<BackgroundTaskManager> = {
  name: 'background-tasks',
  create: () => new BackgroundTaskManager(),
};

async function readFrom(
  path: string,
  offset: number,
  maxChars: number,
): Promise<{ text: string; bytes: number; more: boolean }> {
  const size = await fileSize(path);
  const available = Math.max(0, size - offset);
  const buffer = await readBytes(path, offset, Math.min(available, maxChars * 4));
  let text = buffer.toString('utf8');
  let bytes = buffer.length;
  if (text.length > maxChars) {
    text = text.slice(0, maxChars);
    bytes = Buffer.byteLength(text, 'utf8');
  } else if (bytes < available) {
    // Do not split a multi-byte character across two reads.
    const cut = text.endsWith('\uFFFD') ? text.slice(0, -1) : text;
    bytes = Buffer.byteLength(cut, 'utf8');
    text = cut;
  }
  return { text, bytes, more: offset + bytes < size };
}

/** The session's task manager; throws a message for the model when the context has no session store. */
export function sessionTaskManager(context: {
  run: { resources?: SessionResources };
}): BackgroundTaskManager {
  const tasks = context.run.resources?.get(backgroundTasksKey);
  if (!tasks) {
    throw new EfferentError(
      'tool_failed',
      'This session keeps no background tasks (the context has no session resources).',
    );
  }
  return tasks;
}

/** Why `id` cannot be used, or undefined when the session has that task. Never creates the manager. */
export function unknownTaskMessage(
  context: { run: { resources?: SessionResources } },
  id: string,
): string | undefined {
  const tasks = context.run.resources?.peek(backgroundTasksKey);
  if (tasks?.get(id)) return undefined;
  const known = tasks?.list().map((task) => task.id) ?? [];
  return known.length === 0
    ? `No background task with id "${id}": this session has none.`
    : `No background task with id "${id}". Known ids: ${known.join(', ')}.`;
}
