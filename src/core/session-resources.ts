/**
 * Long-lived things a session owns (background shells, a REPL process) live here instead of in
 * module-level singletons, so two sessions in one process never share them and one `dispose()` at
 * session end releases them all.
 */

/** Something a session owns and must release when it ends. */
export interface SessionResource {
  dispose(): void | Promise<void>;
}

/** Names one kind of resource and how to make it; a module exports one key per kind. */
export interface SessionResourceKey<T extends SessionResource> {
  readonly name: string;
  readonly create: () => T;
}

/** A per-session store of resources, created on first use and disposed together. */
export class SessionResources {
  readonly #entries = new Map<SessionResourceKey<SessionResource>, SessionResource>();
  #disposed = false;

  /** The resource under `key`, created on first use. Throws once the session has been disposed. */
  get<T extends SessionResource>(key: SessionResourceKey<T>): T {
    if (this.#disposed) throw new Error(`Session resources are disposed; cannot create "${key.name}".`);
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = key.create();
      this.#entries.set(key, entry);
    }
    return entry as T;
  }

  /** The resource under `key` if one was created, without creating it. */
  peek<T extends SessionResource>(key: SessionResourceKey<T>): T | undefined {
    return this.#entries.get(key) as T | undefined;
  }

  /** True after {@link dispose}. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** Releases every resource, newest first; one failing does not stop the others. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const entries = [...this.#entries.values()].reverse();
    this.#entries.clear();
    const results = await Promise.allSettled(entries.map(async (entry) => entry.dispose()));
    const failures = results.filter(
      (result): result is PromiseRejectedResult => result.status === 'rejected',
    );
    if (failures.length > 0) {
      throw new AggregateError(
        failures.map((failure) => failure.reason),
        'Some session resources failed to dispose.',
      );
    }
  }
}
