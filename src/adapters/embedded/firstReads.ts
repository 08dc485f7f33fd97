// A run's first reads (ports/firstReads.ts) through the store's collections: the plain-state
// head, and for a LangGraph graph the newest root checkpoint, read side by side. What the run
// itself would read first, through the same collections (plainState.ts headRecord,
// collectionCheckpoints.ts newest).
import { rootThreadNs } from '../../domain/agent/checkpointer.ts';
import { PlainStateStore } from '../../domain/agent/plainState.ts';
import { CollectionCheckpoints } from './collectionCheckpoints.ts';
import { CollectionPlainCheckpoints } from './collectionPlainCheckpoints.ts';
import type { FirstReads } from '../../domain/ports/firstReads.ts';
import type { Store } from '../../domain/ports/store.ts';
import type { FirstReadsKind, KnownReads } from '../../domain/agent/runContext.ts';

export class CollectionFirstReads implements FirstReads {
  private readonly plain: PlainStateStore;
  private readonly checkpoints: CollectionCheckpoints;

  constructor(store: Store) {
    this.plain = new PlainStateStore(new CollectionPlainCheckpoints(store));
    this.checkpoints = new CollectionCheckpoints(store);
  }

  async read(threadId: string, kind: Exclude<FirstReadsKind, undefined>): Promise<KnownReads> {
    // both kinds: a LangGraph run reads the plain state too (plain runs on its thread go ahead of its input)
    const [plainHead, newest] = await Promise.all([
      this.plain.headRecord(threadId),
      kind === 'langgraph' ? this.checkpoints.newest(rootThreadNs(threadId)) : undefined,
    ]);
    return kind === 'langgraph' ? { plainHead, newestCheckpoint: newest ?? null } : { plainHead };
  }
}
