// Store calls a run worker asks to be made in order, per key (a thread). A worker posts a
// held thread's checkpoint writes without waiting for each answer (StoreCheckpointer's
// `orderedStore`: LangGraph's "async" durability does not wait for them either), so several
// can arrive at once. The main thread makes them here one after another, as the worker made
// them: on PostgreSQL each is a query of its own and could otherwise overtake the one before.
// Once one fails the rest fail with its error without being made, as LangGraph makes no
// checkpoint write after a failed one, until the key's run ends (`end`).

interface Chain {
  /** Settles once every call given so far has. */
  tail: Promise<void>;
  /** Calls given and not yet settled. */
  pending: number;
  failure?: { error: unknown };
}

export class OrderedCalls {
  private readonly chains = new Map<string, Chain>();

  /** Makes the call after the key's calls before it; rejects without making it after one of them failed. */
  run<T>(key: string, make: () => Promise<T>): Promise<T> {
    let chain = this.chains.get(key);
    if (!chain) this.chains.set(key, (chain = { tail: Promise.resolve(), pending: 0 }));
    const own = chain;
    const attempt = (): Promise<T> => {
      if (own.failure) return Promise.reject(own.failure.error);
      try {
        return make();
      } catch (err) {
        return Promise.reject(err);
      }
    };
    // with none before it the call is made now, not a turn later: a call answered right after
    // it then finds it made (the embedded store writes synchronously)
    const result = own.pending === 0 ? attempt() : own.tail.then(attempt);
    own.pending += 1;
    own.tail = result.then(
      () => {
        own.pending -= 1;
      },
      (error: unknown) => {
        own.failure ??= { error };
        own.pending -= 1;
      },
    );
    return result;
  }

  /** The first failure among the key's calls since its run began, if any. */
  failure(key: string): { error: unknown } | undefined {
    return this.chains.get(key)?.failure;
  }

  /** The key's run ended: its next run starts a chain of its own, with no failure in it. */
  end(key: string): void {
    this.chains.delete(key);
  }

  /** Keys with a chain (tests). */
  keys(): string[] {
    return [...this.chains.keys()];
  }
}
