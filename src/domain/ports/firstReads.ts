// What a run reads of its thread first (KnownReads: the plain-state head and, for a LangGraph
// graph, the newest root checkpoint with its pending writes), read just before the run is
// handed to its executor and given to it, so that the run starts without those round trips:
// a run worker's questions to the main thread, a database's statements. Every store answers:
// the embedded one through its collections (adapters/embedded/firstReads.ts), PostgreSQL in one
// statement (adapters/postgres/pgFirstReads.ts).
import type { FirstReadsKind, KnownReads } from '../agent/runContext.ts';

export interface FirstReads {
  /** What a run of a graph of `kind` reads first on the thread. Rejects when it cannot be read: the run then reads it itself. */
  read(threadId: string, kind: Exclude<FirstReadsKind, undefined>): Promise<KnownReads>;
}
