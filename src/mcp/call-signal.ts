/** A listener as `addEventListener` takes it: a function, or an object with `handleEvent`. */
type AbortListener = ((event: Event) => void) | { handleEvent(event: Event): void };

/**
 * The `signal` option efferent hands the SDK for one request. The SDK's `Protocol.request()` (1.32)
 * reads only `aborted` and `reason`, calls `throwIfAborted()`, and adds one `abort` listener that it
 * never removes, so a long-lived signal (the session's) cannot be passed to it: each request needs a
 * signal that dies with it. On Node 20 a real `AbortSignal` costs tens of microseconds per request
 * to create and collect, more than the rest of efferent's MCP layer; this object is exactly what the
 * SDK reads and no more; `call-signal.test.ts` holds it to `AbortSignal`'s behaviour.
 */
export class CallSignal {
  #aborted = false;
  #reason: unknown;
  #listeners: Array<AbortListener> = [];
  onabort: ((event: Event) => void) | null = null;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  addEventListener(type: string, listener: AbortListener | null): void {
    // As with AbortSignal, a listener added after the abort is never called.
    if (type !== 'abort' || listener === null || this.#aborted) return;
    if (!this.#listeners.includes(listener)) this.#listeners.push(listener);
  }

  removeEventListener(type: string, listener: AbortListener | null): void {
    if (type !== 'abort' || listener === null) return;
    const index = this.#listeners.indexOf(listener);
    if (index !== -1) this.#listeners.splice(index, 1);
  }

  /** Aborts once: `reason` (an `AbortError` when none is given), then every listener in order. */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason =
      reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    const event = new Event('abort');
    this.onabort?.(event);
    for (const listener of listeners) {
      try {
        if (typeof listener === 'function') listener.call(this, event);
        else listener.handleEvent(event);
      } catch (error) {
        // As from an EventTarget: a throwing listener is reported, and the others still run.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** This object where the SDK's types ask for an `AbortSignal` (it reads only the members above). */
  get asSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}

/** A request's signal tied to `parent` (aborted with its reason), and how to untie it afterwards. */
export function linkCallSignal(parent: AbortSignal | undefined): { signal: CallSignal; unlink: () => void } {
  const signal = new CallSignal();
  if (!parent) return { signal, unlink: noop };
  if (parent.aborted) {
    signal.abort(parent.reason);
    return { signal, unlink: noop };
  }
  const forward = () => signal.abort(parent.reason);
  parent.addEventListener('abort', forward, { once: true });
  return { signal, unlink: () => parent.removeEventListener('abort', forward) };
}

function noop(): void {}
