import { z } from 'zod';
import { type AnyTool, buildTool, EfferentError } from '../core/index.ts';

/** One recorded call of a scripted tool. */
export interface ScriptedCall {
  toolUseId: string;
  input: Record<string, unknown>;
  startedAt: number;
  endedAt?: number;
  outcome?: 'ok' | 'error' | 'aborted';
}

/** How a scripted tool behaves. */
export interface ScriptedToolOptions {
  name: string;
  /** Default true: runs in parallel with other safe calls. */
  concurrencySafe?: boolean;
  readOnly?: boolean;
  /** How long each call takes (ms), or a function of the input. */
  durationMs?: number | ((input: Record<string, unknown>) => number);
  /** Return a string to make the call fail with that message. */
  failWith?: (input: Record<string, unknown>) => string | undefined;
  /** What a successful call returns. */
  output?: (input: Record<string, unknown>) => unknown;
  /** A failure of this tool cancels its running siblings (like a shell command). */
  cancelsSiblingsOnError?: boolean;
  interruptBehavior?: 'cancel' | 'block';
  /** Progress events to emit, one per entry, spread over the call. */
  progress?: readonly unknown[];
}

/** A tool with scripted timing and outcomes, that records every call, for testing runtimes built on efferent. */
export interface ScriptedTool {
  tool: AnyTool;
  calls: ScriptedCall[];
  /** Resolves every call that waits on `gate` (when the input has `gate: "<name>"`). */
  open(gate: string): void;
}

function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new EfferentError('aborted', 'The call was aborted.'));
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(new EfferentError('aborted', 'The call was aborted.'));
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Builds a scripted tool. Its input is free-form (`{ gate?, ... }`); a call whose input names a gate
 * waits until the test opens it, so tests can force any interleaving without sleeping.
 */
export function createScriptedTool(options: ScriptedToolOptions): ScriptedTool {
  const calls: ScriptedCall[] = [];
  const gates = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const gateFor = (name: string) => {
    let entry = gates.get(name);
    if (!entry) {
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      entry = { promise, resolve };
      gates.set(name, entry);
    }
    return entry;
  };
  const tool = buildTool<Record<string, unknown>, unknown, unknown>({
    name: options.name,
    inputSchema: z.looseObject({ gate: z.string().optional() }),
    prompt: `Scripted test tool ${options.name}.`,
    isConcurrencySafe: () => options.concurrencySafe ?? true,
    isReadOnly: () => options.readOnly ?? options.concurrencySafe ?? true,
    cancelsSiblingsOnError: () => options.cancelsSiblingsOnError ?? false,
    interruptBehavior: () => options.interruptBehavior ?? 'cancel',
    description: (input) => `${options.name}(${JSON.stringify(input)})`,
    async call(input, context, _canUseTool, onProgress, toolUseId) {
      const record: ScriptedCall = { toolUseId, input, startedAt: Date.now() };
      calls.push(record);
      const signal = context.run.abortController.signal;
      try {
        if (typeof input.gate === 'string') {
          await Promise.race([gateFor(input.gate).promise, waitFor(2 ** 31 - 1, signal)]);
        }
        const duration =
          typeof options.durationMs === 'function' ? options.durationMs(input) : (options.durationMs ?? 0);
        const steps = options.progress ?? [];
        for (const data of steps) {
          await waitFor(duration / (steps.length + 1), signal);
          onProgress({ toolUseId, data });
        }
        await waitFor(duration / (steps.length + 1), signal);
        const failure = options.failWith?.(input);
        if (failure !== undefined) throw new EfferentError('tool_failed', failure);
        record.outcome = 'ok';
        return { data: options.output ? options.output(input) : `${options.name} done` };
      } catch (error) {
        record.outcome = signal.aborted ? 'aborted' : 'error';
        throw error;
      } finally {
        record.endedAt = Date.now();
      }
    },
  });
  return { tool, calls, open: (gate) => gateFor(gate).resolve() };
}
