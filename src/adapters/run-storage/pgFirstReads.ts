// What a run reads of its thread first on PostgreSQL (RunStore.firstReads, KnownReads: the plain-state head and the newest root
// LangGraph checkpoint with its pending writes), read in one statement. Read through the
// collections it takes three: the head, the checkpoint it names, then the newest checkpoint
// (and a fourth for that checkpoint's writes, a fifth for the channel values it names). One
// statement also reads them in one snapshot.
// The rows are those the collections read (collectionRunStore.ts: plainState.ts headRecord,
// collectionCheckpoints.ts newest): the same order, the same documents.
import { CHECKPOINT_KEY_SEPARATOR, rootThreadNs, type StoredHead } from '../../domain/agent/checkpoints/checkpointer.ts';
import { joinChain } from '../../domain/agent/checkpoints/channelChains.ts';
import type { PlainCheckpointRecord } from '../../domain/agent/checkpoints/plainState.ts';
import type { ChannelValueRecord } from '../../domain/ports/checkpointsRepository.ts';
import type { KnownReads } from '../../domain/agent/graphs/runContext.ts';
import type { PgStore } from '../postgres/pgStore.ts';

/**
 * $1 thread id, $2 its root `thread_ns`, $3 the key separator, $4 the root `thread_ns` and the
 * separator joined (a channel value's key starts with it). One parameter rather than `$2 || $3`:
 * PostgreSQL then costs the plan made without the parameters' values (kept, a statement
 * prepared once per connection) as the plans made with them, and keeps it instead of planning
 * the statement anew at every run (0.44 ms of planning a run on a loaded host, 10 times its execution). The head's checkpoint row is
 * `<thread id>:<checkpoint id>` (collectionPlainCheckpoints.ts rowId); the newest checkpoint is the highest id
 * (then the latest stored), its writes those of its `cp_key`, in the order they were stored,
 * its values those its `channels` name (checkpointer.ts channelValueKey), by channel: each the
 * records of its chain in order (a tail's base values first: channelChains.ts), null where one
 * is missing, joined here as the collections join them.
 */
export const FIRST_READS_SQL = `SELECT ${firstReadsColumns({ thread: '$1::text', threadNs: '$2::text', separator: '$3::text', valuePrefix: '$4::text' })}`;

/**
 * The first reads' columns (plain_head, newest, writes, chains) and their FROM, over SQL
 * expressions of the thread id, its root `thread_ns`, the key separator and the channel
 * values' key prefix: FIRST_READS_SQL's, and the claim's for each run it takes (pgRunClaims.ts).
 * Each value of a chain is looked up by its key, an index probe each (a subquery per part, null
 * when missing): as a join, the planner, counting ~100 parts for a json array, hashed the whole
 * values table instead once it held a few thousand rows (2,418 rows, 237 buffers and ~2.4 ms a
 * claimed run in the bench's LangGraph round, and growing with every thread's history).
 */
export function firstReadsColumns(of: { thread: string; threadNs: string; separator: string; valuePrefix: string }): string {
  return `(SELECT c.doc FROM agentplane_plain_heads h JOIN agentplane_plain_checkpoints c ON c.id = h.id || ':' || (h.doc->>'checkpoint_id') WHERE h.id = ${of.thread}) AS plain_head,
    n.doc AS newest,
    (SELECT coalesce(json_agg(w.doc ORDER BY w.seq), '[]'::json) FROM agentplane_checkpoint_writes w
      WHERE n.doc IS NOT NULL AND w.cp_key = (n.doc->>'thread_id') || ${of.separator} || (n.doc->>'checkpoint_ns') || ${of.separator} || (n.doc->>'checkpoint_id')) AS writes,
    (SELECT coalesce(json_object_agg(c.key, (SELECT json_agg((SELECT v.doc FROM agentplane_checkpoint_values v
          WHERE v.id = ${of.valuePrefix} || c.key || ${of.separator} || p.at) ORDER BY p.ord) FROM
        (SELECT b.at, b.ord FROM json_array_elements_text(coalesce(c.value->'base', '[]'::json)) WITH ORDINALITY AS b(at, ord)
          UNION ALL SELECT c.value->>'at', 2147483647) AS p)), '{}'::json)
      FROM json_each(CASE WHEN n.doc IS NULL THEN NULL ELSE n.doc->'channels' END) c) AS chains
  FROM (SELECT 1) AS one
  LEFT JOIN LATERAL (SELECT doc FROM agentplane_checkpoints WHERE thread_ns = ${of.threadNs} ORDER BY checkpoint_id COLLATE "C" DESC, seq DESC LIMIT 1) AS n ON true`;
}

/** The first reads' row, as read. */
export interface FirstReadsRow {
  plain_head: PlainCheckpointRecord | null;
  newest: StoredHead['record'] | null;
  writes: StoredHead['writes'];
  chains: Record<string, (ChannelValueRecord | null)[]>;
}

/** Both first reads, as read from PostgreSQL (never a worker's own checkpoint: KnownReads.ownCheckpoint is the embedded store's). */
type ReadFirst = Required<Omit<KnownReads, 'ownCheckpoint'>>;

/** What a run reads first, from its row: each channel value joined from its chain, as the collections join them. */
export function knownReadsOf(row: FirstReadsRow): ReadFirst {
  const values: StoredHead['values'] = {};
  for (const [channel, chain] of Object.entries(row.chains)) {
    const value = joinChain(chain.map((record) => record ?? undefined));
    if (value) values[channel] = value;
  }
  return { plainHead: row.plain_head ?? null, newestCheckpoint: row.newest ? { record: row.newest, writes: row.writes, values } : null };
}

/**
 * First reads made ahead, by the statement that claimed a run (pgRunClaims.ts), kept for the
 * run's start here (PgRunStore.firstReads): by thread, since a thread has one claimed run at a
 * time and a claim's own reads replace any kept before (a run's start takes them once). Read
 * in the claim's snapshot: the run before on the thread had ended (its claim gone) and nothing
 * else writes the thread's checkpoints while this one holds it.
 */
export class ClaimedReads {
  private readonly kept = new Map<string, ReadFirst>();

  put(threadId: string, reads: ReadFirst): void {
    this.kept.delete(threadId);
    this.kept.set(threadId, reads);
    // the reads of runs that never read (a graph of another kind) go, oldest first
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
  }

  forget(threadId: string): void {
    this.kept.delete(threadId);
  }

  take(threadId: string): ReadFirst | undefined {
    const reads = this.kept.get(threadId);
    this.kept.delete(threadId);
    return reads;
  }
}

/** Most first reads kept for runs not started yet (ClaimedReads). */
const MAX_KEPT = 1_000;

export async function pgFirstReads(store: PgStore, threadId: string): Promise<ReadFirst> {
  const { rows } = await store.query<FirstReadsRow>(
    FIRST_READS_SQL,
    [threadId, rootThreadNs(threadId), CHECKPOINT_KEY_SEPARATOR, `${rootThreadNs(threadId)}${CHECKPOINT_KEY_SEPARATOR}`],
    // one per run: parsed once per connection, its plan kept (~40% of its time on loopback)
    'agentplane_first_reads',
  );
  return knownReadsOf(rows[0]);
}
