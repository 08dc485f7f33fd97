// What servers sharing one store need from each other, beside the records themselves:
// mutual exclusion per key, one leader per background duty, and wake-up messages. On the
// embedded store there is one server, so each of these is answered in process
// (adapters/embedded/localCoordination.ts); on PostgreSQL (adapters/postgres/pgCoordination.ts)
// every replica on the database takes part.

export interface Singleton {
  /** Gives up the lease (and stops leading); resolves once `lead` has returned. */
  stop(): Promise<void>;
}

export interface SerializeOptions {
  /**
   * The key is taken inside other keys' works (a tenant's quota inside a deployment's lock), and
   * no key is ever taken inside its own work. PostgreSQL holds each key on a connection: an
   * innermost key's come from a pool of their own, so holders of outer keys waiting for it never
   * hold every connection it could be granted on.
   */
  innermost?: boolean;
}

export interface Coordination {
  /** True when other server processes may share the store (PostgreSQL). */
  readonly shared: boolean;
  /** This server's id among those sharing the store (distinct per process). */
  readonly replicaId: string;
  /**
   * Runs `work` while holding `key` against every server on the store; calls for one key
   * on one server run in the order they were made.
   */
  serialize<T>(key: string, work: () => Promise<T>, options?: SerializeOptions): Promise<T>;
  /**
   * Keeps trying to become the one server leading `name`; while it is, `lead` runs. Its
   * signal aborts when the lease is lost (the database connection holding it dropped) or
   * on stop, and `lead` is called again when the lease is won again.
   */
  singleton(name: string, lead: (signal: AbortSignal) => Promise<void> | void): Singleton;
  /** Sends `payload` to every listener of `channel` on every server (this one included). */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Calls `handler` for each message on `channel`. A payload of '' means messages may have
   * been missed (the connection was re-established): listeners look again at what they wait for.
   */
  listen(channel: string, handler: (payload: string) => void): () => void;
  close(): Promise<void>;
}
