import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CallSignal, linkCallSignal } from './call-signal.ts';

/** What happens to a signal, step by step, as the SDK and efferent use it. */
function script(
  signal: {
    aborted: boolean;
    reason: unknown;
    throwIfAborted(): void;
    addEventListener(type: string, listener: (event: Event) => void): void;
    removeEventListener(type: string, listener: (event: Event) => void): void;
  },
  abort: (reason?: unknown) => void,
): unknown[] {
  const seen: unknown[] = [];
  const first = (event: Event) => seen.push(['first', event.type, signal.aborted]);
  const removed = () => seen.push('removed listener ran');
  signal.addEventListener('abort', first);
  signal.addEventListener('abort', first);
  signal.addEventListener('abort', removed);
  signal.addEventListener('other', () => seen.push('other event ran'));
  signal.removeEventListener('abort', removed);
  signal.addEventListener('abort', () => seen.push(['second', signal.reason]));
  seen.push(['before', signal.aborted, signal.reason]);
  signal.throwIfAborted();
  abort('stop');
  abort('again');
  signal.addEventListener('abort', () => seen.push('added after the abort ran'));
  seen.push(['after', signal.aborted, signal.reason]);
  try {
    signal.throwIfAborted();
  } catch (error) {
    seen.push(['threw', error]);
  }
  return seen;
}

describe('CallSignal', () => {
  it('behaves as an AbortSignal in everything the SDK reads', () => {
    const real = new AbortController();
    const own = new CallSignal();
    const expected = script(real.signal, (reason) => real.abort(reason));
    expect(script(own, (reason) => own.abort(reason))).toEqual(expected);
    expect(expected).toContainEqual(['threw', 'stop']);
  });

  it('aborts with an AbortError when no reason is given, as AbortController does', () => {
    const real = new AbortController();
    real.abort();
    const own = new CallSignal();
    own.abort();
    expect(own.reason).toBeInstanceOf(DOMException);
    expect((own.reason as DOMException).name).toBe((real.signal.reason as DOMException).name);
  });

  it('follows its parent while linked and leaves no listener on it once unlinked', () => {
    const parent = new AbortController();
    const linked = linkCallSignal(parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    linked.unlink();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    parent.abort(new Error('interrupted'));
    expect(linked.signal.aborted).toBe(false);

    const other = new AbortController();
    const following = linkCallSignal(other.signal);
    other.abort(new Error('interrupted'));
    expect(following.signal.aborted).toBe(true);
    expect((following.signal.reason as Error).message).toBe('interrupted');
  });

  it('starts aborted under an aborted parent', () => {
    const parent = new AbortController();
    parent.abort('gone');
    const linked = linkCallSignal(parent.signal);
    expect(linked.signal.aborted).toBe(true);
    expect(() => linked.signal.throwIfAborted()).toThrow('gone');
  });
});
