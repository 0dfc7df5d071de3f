import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** How a question reads its answer. */
export interface QuestionOptions {
  signal?: AbortSignal;
  /**
   * Only a line completed after the question was shown answers it: lines queued before, and whatever
   * is half-typed on the current line, are dropped first (permission prompts use this).
   */
  fresh?: boolean;
  /** Told about the input that `fresh` dropped, so the user knows it did not answer. */
  onDiscarded?: (text: string) => void;
}

/** A key the terminal reported (only on a real terminal). */
export interface KeyPress {
  name?: string;
  ctrl?: boolean;
  sequence?: string;
}

/**
 * Lines from the terminal (or a pipe) as a queue, so the prompt loop reads them in order even when a
 * script writes all its input at once. `null` means the input ended.
 */
export class LineInput {
  readonly #lines: string[] = [];
  readonly #waiters: Array<(line: string | null) => void> = [];
  readonly #readline: Interface;
  readonly #input: Readable;
  readonly #keyListeners = new Set<(key: KeyPress) => void>();
  #ended = false;

  constructor(input: Readable, output: Writable) {
    const terminal = (input as { isTTY?: boolean }).isTTY === true;
    this.#input = input;
    this.#readline = createInterface({ input, output, terminal, escapeCodeTimeout: 50 });
    this.#readline.on('line', (line) => this.#deliver(line));
    this.#readline.on('close', () => {
      this.#ended = true;
      for (const waiter of this.#waiters.splice(0)) waiter(null);
    });
    if (terminal) {
      // readline turns a terminal's bytes into keypress events on the input stream.
      input.on('keypress', (_text: string | undefined, key: KeyPress | undefined) => {
        if (key) for (const listener of this.#keyListeners) listener(key);
      });
    }
  }

  /** The readline interface, for SIGINT on a real terminal. */
  get readline(): Interface {
    return this.#readline;
  }

  /** True when reading from a terminal (keys such as Esc are reported). */
  get isTerminal(): boolean {
    return (this.#input as { isTTY?: boolean }).isTTY === true;
  }

  /** Calls `listener` for every key pressed on a terminal; returns a function that stops it. */
  onKey(listener: (key: KeyPress) => void): () => void {
    this.#keyListeners.add(listener);
    return () => this.#keyListeners.delete(listener);
  }

  /**
   * Drops every line typed but not yet read, and clears the line being typed. Returns what was dropped
   * (queued lines, then the partial line), empty when there was nothing.
   */
  flush(): string[] {
    const dropped = this.#lines.splice(0);
    const partial = (this.#readline as Interface & { line?: string }).line;
    if (partial) {
      dropped.push(partial);
      // Ctrl+U: readline deletes from the cursor to the start of the line, Ctrl+K to its end.
      this.#readline.write(null, { ctrl: true, name: 'e' });
      this.#readline.write(null, { ctrl: true, name: 'u' });
    }
    return dropped;
  }

  /** Writes a prompt and waits for the next line; null when the input ended or the signal aborted. */
  async question(
    prompt: string,
    output: Writable,
    signalOrOptions?: AbortSignal | QuestionOptions,
  ): Promise<string | null> {
    const options: QuestionOptions =
      signalOrOptions instanceof AbortSignal ? { signal: signalOrOptions } : (signalOrOptions ?? {});
    const { signal } = options;
    if (options.fresh) {
      const dropped = this.flush();
      if (dropped.length > 0) options.onDiscarded?.(dropped.join('\n'));
    }
    output.write(prompt);
    const queued = this.#lines.shift();
    if (queued !== undefined) return queued;
    if (this.#ended || signal?.aborted) return null;
    return new Promise((resolve) => {
      const waiter = (line: string | null) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      };
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Stops reading. */
  close(): void {
    this.#readline.close();
  }

  #deliver(line: string): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(line);
    else this.#lines.push(line);
  }
}
