// The one place that picks where records live: PostgreSQL when a database URL is configured
// (never in mock mode), shared with any other replica on the database; else the embedded
// store, this process's alone. Everything past this file sees the ports only.
import type { RunBackend } from './area.ts';
import type { Coordination } from '../domain/ports/coordination.ts';
import type { Store, WriteOp } from '../domain/ports/store.ts';
import type { RunRecord } from '../domain/agent/records.ts';
import type { BackendQueries } from '../domain/ports/queries.ts';
import { InMemoryRunEventLog } from '../adapters/run-storage/inMemoryRunEventLog.ts';
import { InProcessRunClaims } from '../adapters/run-storage/inProcessRunClaims.ts';
import { CollectionRunStore } from '../adapters/run-storage/collectionRunStore.ts';
import { LocalCoordination } from '../adapters/embedded/localCoordination.ts';
import { openJournalStore, type JournalStore } from '../adapters/embedded/journalStore.ts';
import type { ServerStorage } from '../runtime/application.ts';
import type { ServerConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/logging/logger.ts';

export interface Backend extends ServerStorage {
  readonly kind: 'embedded' | 'postgresql';
  readonly store: Store;
  readonly coordination: Coordination;
  /**
   * The run claims and event logs: shared by the replicas through PostgreSQL, or kept in
   * process on the embedded store. Called once, when the agent server is built.
   */
  runBackend(): Promise<RunBackend>;
  /** The repositories and queries answered in SQL on PostgreSQL; none on the embedded store (compose builds those over its collections). */
  readonly queries: BackendQueries;
}

export async function openBackend(config: ServerConfig, log: Logger): Promise<Backend> {
  if (config.databaseUrl && !config.mock) return openPostgres(config.databaseUrl, config, log);
  const store = await openJournalStore({
    dataDir: config.mock ? null : config.dataDir,
    fsync: config.fsync,
    cacheBytes: config.storeCacheMb * 1024 * 1024,
    log: log.child({ component: 'store' }),
    // the history's records load once the server serves (serving below), not inside its start
    loadAfterMs: null,
  });
  let events: InMemoryRunEventLog | undefined;
  const runBackend = async (): Promise<RunBackend> => {
    const made = embeddedRunBackend(store, config.runLeaseMs, store);
    events = made.events as InMemoryRunEventLog;
    return made;
  };
  return {
    ...backend('embedded', store, new LocalCoordination(), runBackend, {}),
    serving: () => store.loadInBackground(),
    // an idle server's release (runtime/idle/idleCollector.ts): the finished runs' logs and the cached values
    releaseUnused: (unusedForMs) => (events?.releaseFinished(unusedForMs) ?? 0) + store.releaseUnused(unusedForMs),
  };
}

/**
 * The run claims and event logs of one server on the embedded store: kept in process. The
 * finished runs' logs are counted in the budget of `cache`, the store's value cache (issue 91).
 */
export function embeddedRunBackend(
  store: Store,
  leaseMs: number,
  journal?: Pick<JournalStore, 'shareCache' | 'textPuts' | 'writeTexts' | 'checkpointMark'>,
): RunBackend {
  const events = new InMemoryRunEventLog();
  if (journal) events.countIn(journal.shareCache(() => events.finishedHeld));
  const claims = new InProcessRunClaims(store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] }), store, events);
  // a run worker's checkpoint writes reach a store that writes a journal as their texts (textPut.ts)
  const collections = journal?.textPuts();
  return {
    ...(collections
      ? { textPuts: { collections, write: (ops, thread) => journal!.writeTexts(ops, thread), mark: (thread) => journal!.checkpointMark(thread) } }
      : {}),
    runs: new CollectionRunStore(store),
    events,
    claims,
    leaseMs,
    nextOnThread: (threadId) => claims.nextOnThread(threadId),
  };
}

async function openPostgres(url: string, config: ServerConfig, log: Logger): Promise<Backend> {
  // loaded only here: a server on the embedded store never loads the pg driver (start time)
  const [
    { openPgStore },
    { PgCoordination },
    { PgRunClaims },
    { PgRunEventLog },
    { PgThreads },
    { PgAssistants },
    { PgCrons },
    { PgDeployments },
    { PgRunStore },
    { PgWebhookOutbox },
    { ClaimedReads },
  ] = await Promise.all([
    import('../adapters/postgres/pgStore.ts'),
    import('../adapters/postgres/pgCoordination.ts'),
    import('../adapters/run-storage/pgRunClaims.ts'),
    import('../adapters/run-storage/pgRunEventLog.ts'),
    import('../adapters/postgres/pgThreads.ts'),
    import('../adapters/postgres/pgAssistants.ts'),
    import('../adapters/postgres/pgCrons.ts'),
    import('../adapters/postgres/pgDeployments.ts'),
    import('../adapters/run-storage/pgRunStore.ts'),
    import('../adapters/postgres/pgWebhookOutbox.ts'),
    import('../adapters/run-storage/pgFirstReads.ts'),
  ]);
  const store = await openPgStore({ url, poolSize: config.databasePool });
  const coordinationLog = log.child({ component: 'coordination' });
  const coordination = new PgCoordination({
    url: store.url,
    lockPoolSize: config.databasePool,
    onError: (message, err) => coordinationLog.warn(message, err ? { err } : {}),
  });
  const queries: BackendQueries = {
    threads: new PgThreads(store),
    assistants: new PgAssistants(store),
    crons: new PgCrons(store),
    deployments: new PgDeployments(store),
    webhookOutbox: new PgWebhookOutbox(store),
  };
  const runBackend = async () => {
    // claims are only taken once the others can see this replica alive
    await coordination.ready();
    const warn = (message: string, err: unknown) => log.warn(message, { area: 'agent-server', err });
    const events = new PgRunEventLog(store, coordination, warn);
    // a run's first reads are read with its claim and kept for its start
    const claimedReads = new ClaimedReads();
    return {
      runs: new PgRunStore(store, claimedReads),
      events,
      claims: new PgRunClaims({ store, coordination, leaseMs: config.runLeaseMs, events, warn, claimedReads }),
      leaseMs: config.runLeaseMs,
      // any replica may claim a thread's next run: none is known to start ahead
      nextOnThread: null,
      // runs' checkpoint writes carry the events waiting in their window: a statement and a commit fewer for each
      orderedWrite: (ops: WriteOp[]) => events.writeCarrying(ops),
    };
  };
  return backend('postgresql', store, coordination, runBackend, queries);
}

function backend(kind: Backend['kind'], store: Store, coordination: Coordination, runBackend: Backend['runBackend'], queries: BackendQueries): Backend {
  return {
    kind,
    queries,
    store,
    coordination,
    replicaId: coordination.shared ? coordination.replicaId : undefined,
    runBackend,
    recordCounts: () => Promise.all(store.collectionNames().map(async (collection) => ({ collection, count: await store.collection(collection).count() }))),
    async close() {
      await coordination.close();
      await store.close();
    },
  };
}
