import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/**
 * Lines from the terminal (or a pipe) as a queue, so the prompt loop and permission questions read
 * them in order even when a script writes all its answers at once. `null` means the input ended.
 */
export class LineInput {
  readonly #lines: string[] = [];
  readonly #waiters: Array<(line: string | null) => void> = [];
  readonly #readline: Interface;
  #ended = false;

  constructor(input: Readable, output: Writable) {
    const terminal = (input as { isTTY?: boolean }).isTTY === true;
    this.#readline = createInterface({ input, output, terminal });
    this.#readline.on('line', (line) => this.#deliver(line));
    this.#readline.on('close', () => {
      this.#ended = true;
      for (const waiter of this.#waiters.splice(0)) waiter(null);
    });
  }

  /** The readline interface, for SIGINT on a real terminal. */
  get readline(): Interface {
    return this.#readline;
  }

  /** Writes a prompt and waits for the next line; null when the input ended or the signal aborted. */
  async question(prompt: string, output: Writable, signal?: AbortSignal): Promise<string | null> {
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
