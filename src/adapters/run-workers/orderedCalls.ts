// Store calls a run worker asks to be made in order, per key (a thread). A worker posts a
// held thread's checkpoint writes without waiting for each answer (StoreCheckpointer's
// `orderedStore`: LangGraph's "async" durability does not wait for them either), so several
// can arrive at once. The main thread makes them here one after another, as the worker made
// them: on PostgreSQL each is a query of its own and could otherwise overtake the one before.
// Once one fails the rest fail with its error without being made, as LangGraph makes no
// checkpoint write after a failed one, until the key's run ends (`end`).
// Writes that arrive while the key's calls before them are still being made are made
// together (`batch`): one store write, so one statement on PostgreSQL where there would be one
// each. Their order holds (the batch's ops are in arrival order and it is made where its first
// would have been), and so does every acknowledgement: a batch is one write, committed whole or
// not at all, and each of its callers is answered with its outcome.

interface Chain {
  /** Settles once every call given so far has. */
  tail: Promise<void>;
  /** Calls given and not yet settled. */
  pending: number;
  failure?: { error: unknown };
  /** The batch at the tail of the chain, not yet being made: a write arriving now joins it. */
  open?: Batch<unknown>;
}

interface Batch<I> {
  items: I[];
  made: Promise<void>;
}

export class OrderedCalls {
  private readonly chains = new Map<string, Chain>();

  /** Makes the call after the key's calls before it; rejects without making it after one of them failed. */
  run<T>(key: string, make: () => Promise<T>): Promise<T> {
    const own = this.chain(key);
    // a call after the open batch: nothing given later may be made before it
    own.open = undefined;
    return this.enqueue(own, make);
  }

  /**
   * `items` (given together) made in order as `run` makes a call, as one (`makeMany` makes
   * them in order), with the items given after them while they wait for the key's calls
   * before them, as long as `fits` says the waiting batch can take the next ones. Every item
   * of a batch settles as the batch does.
   */
  batch<I>(key: string, items: I[], makeMany: (items: I[]) => Promise<void>, fits: (batch: I[], next: I[]) => boolean): Promise<void> {
    const own = this.chain(key);
    const open = own.open as Batch<I> | undefined;
    if (open && fits(open.items, items)) {
      open.items.push(...items);
      return open.made;
    }
    const waits = own.pending > 0;
    const batch: Batch<I> = { items: [...items], made: Promise.resolve() };
    batch.made = this.enqueue(own, () => {
      // being made now: a later item waits for it, in a batch of its own
      if (own.open === batch) own.open = undefined;
      return makeMany(batch.items);
    });
    // made at once when nothing is before it: then nothing can join it
    own.open = waits ? (batch as Batch<unknown>) : undefined;
    return batch.made;
  }

  private chain(key: string): Chain {
    let chain = this.chains.get(key);
    if (!chain) this.chains.set(key, (chain = { tail: Promise.resolve(), pending: 0 }));
    return chain;
  }

  private enqueue<T>(own: Chain, make: () => Promise<T>): Promise<T> {
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
