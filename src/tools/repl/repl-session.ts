import { type ChildProcess, spawn } from 'node:child_process';
import type { SessionResource, SessionResourceKey } from '../../core/index.ts';
import { signalProcessGroup } from '../shared/process/process-group.ts';
import { replHostSource } from './repl-host-source.ts';

/** The result of evaluating one piece of code. */
export interface ReplEvaluation {
  /** Console output of the call (console.log/error/warn…). */
  output: string;
  /** True when the output was cut at the limit. */
  outputTruncated: boolean;
  /** The value of the last expression, inspected; absent for `undefined`. */
  value?: string;
  /** The error the code threw, with its stack. */
  error?: string;
  /** Why the call did not finish by itself. */
  stopped?: 'timeout' | 'aborted';
  /** Set when the JavaScript context was lost and a fresh one will be used next time. */
  restartNote?: string;
}

interface HostResult {
  type: 'result';
  id: number;
  output: string;
  truncated: boolean;
  value?: string;
  error?: string;
}

/** Where and how the evaluation process runs. */
export interface ReplProcessOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  maxOutputChars: number;
}

/** How long an interrupted synchronous loop gets to unwind after SIGINT before the process is killed. */
const interruptGraceMs = 1_000;

/**
 * One JavaScript context that lives in a child process for the whole session: variables survive
 * between calls, and a runaway loop is stopped (SIGINT first, which keeps the state; SIGKILL and a
 * fresh context if that fails) without touching the agent's own process.
 */
export class ReplSession implements SessionResource {
  #child: ChildProcess | undefined;
  #ready: Promise<void> | undefined;
  #nextId = 1;
  #pending = new Map<number, (result: HostResult | undefined) => void>();
  #lostNote: string | undefined;

  /** Evaluates `code`, starting the process on first use. */
  async evaluate(
    code: string,
    options: ReplProcessOptions & { timeoutMs: number; signal: AbortSignal },
  ): Promise<ReplEvaluation> {
    // The process and its channel are unref'd; this keeps the agent's process alive while a call runs.
    const hold = setInterval(() => {}, 1 << 30);
    try {
      return await this.#evaluate(code, options);
    } finally {
      clearInterval(hold);
    }
  }

  async #evaluate(
    code: string,
    options: ReplProcessOptions & { timeoutMs: number; signal: AbortSignal },
  ): Promise<ReplEvaluation> {
    const child = await this.#start(options);
    const id = this.#nextId++;
    const answer = new Promise<HostResult | undefined>((resolve) => this.#pending.set(id, resolve));
    child.send({ type: 'eval', id, code });

    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const outcome = await Promise.race([
      answer.then((result) => ({ kind: 'answer' as const, result })),
      new Promise<{ kind: 'timeout' }>((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'timeout' }), options.timeoutMs);
      }),
      new Promise<{ kind: 'aborted' }>((resolve) => {
        onAbort = () => resolve({ kind: 'aborted' });
        if (options.signal.aborted) onAbort();
        else options.signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) options.signal.removeEventListener('abort', onAbort);

    if (outcome.kind === 'answer') {
      if (outcome.result) return this.#toEvaluation(outcome.result);
      return {
        output: '',
        outputTruncated: false,
        error: 'The REPL process ended unexpectedly.',
        restartNote: this.#takeLostNote(),
      };
    }
    const stopped = outcome.kind;
    // SIGINT interrupts a synchronous loop inside the evaluator and keeps every variable.
    child.kill('SIGINT');
    const interrupted = await Promise.race([
      answer,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), interruptGraceMs)),
    ]);
    if (interrupted) return { ...this.#toEvaluation(interrupted), stopped };
    this.#pending.delete(id);
    this.#kill(
      `The REPL was restarted because the call ${stopped === 'timeout' ? 'timed out' : 'was aborted'} and could not be interrupted; variables from earlier calls are gone.`,
    );
    return { output: '', outputTruncated: false, stopped, restartNote: this.#takeLostNote() };
  }

  /** Ends the process. */
  dispose(): void {
    this.#kill(undefined);
  }

  #toEvaluation(result: HostResult): ReplEvaluation {
    const evaluation: ReplEvaluation = { output: result.output, outputTruncated: result.truncated };
    if (result.value !== undefined) evaluation.value = result.value;
    if (result.error !== undefined) evaluation.error = result.error;
    return evaluation;
  }

  #takeLostNote(): string {
    const note = this.#lostNote ?? 'The REPL process ended; variables from earlier calls are gone.';
    this.#lostNote = undefined;
    return note;
  }

  async #start(options: ReplProcessOptions): Promise<ChildProcess> {
    if (this.#child && this.#ready) {
      await this.#ready;
      return this.#child;
    }
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
    env['EFFERENT_REPL_MAX_OUTPUT'] = String(options.maxOutputChars);
    const child = spawn(process.execPath, ['-e', replHostSource], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // Its own process group, so whatever the evaluated code starts can be ended with it.
      detached: true,
    });
    this.#child = child;
    // An idle REPL does not keep the agent's process alive: a call in flight holds its own timer, and
    // a session left undisposed is disposed on `beforeExit`.
    child.unref();
    child.channel?.unref();
    (child.stderr as { unref?: () => void } | null)?.unref?.();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2_000);
    });
    this.#ready = new Promise<void>((resolve, reject) => {
      child.on('message', (message: { type?: string; id?: number }) => {
        if (message.type === 'ready') resolve();
        if (message.type === 'result' && typeof message.id === 'number') {
          this.#pending.get(message.id)?.(message as HostResult);
          this.#pending.delete(message.id);
        }
      });
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        // The code may have ended the process itself (process.exit); its children go with it.
        if (child.pid !== undefined) signalProcessGroup(child.pid, 'SIGKILL');
        reject(
          new Error(`The REPL process exited (${signal ?? code}) before it was ready. ${stderr}`.trim()),
        );
        if (this.#child === child) {
          this.#child = undefined;
          this.#ready = undefined;
          this.#lostNote ??= `The REPL process exited (${signal ?? `code ${code}`}); variables from earlier calls are gone.`;
        }
        for (const resolvePending of this.#pending.values()) resolvePending(undefined);
        this.#pending.clear();
      });
    });
    await this.#ready;
    return child;
  }

  #kill(note: string | undefined): void {
    const child = this.#child;
    this.#child = undefined;
    this.#ready = undefined;
    if (note !== undefined) this.#lostNote = note;
    if (child?.pid !== undefined) signalProcessGroup(child.pid, 'SIGKILL');
  }
}

/** The session's REPL. */
export const replSessionKey: SessionResourceKey<ReplSession> = {
  name: 'repl',
  create: () => new ReplSession(),
};
