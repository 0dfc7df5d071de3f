/**
 * An unbounded async queue: producers push from callbacks, one consumer iterates. Closing lets the
 * consumer drain what is left and stop.
 */
export class EventQueue<T> {
  #items: T[] = [];
  #closed = false;
  #wake: (() => void) | undefined;

  /** Adds an item; ignored after close. */
  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#notify();
  }

  /** No more items will come; the iterator ends once the backlog is drained. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  get closed(): boolean {
    return this.#closed;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}
