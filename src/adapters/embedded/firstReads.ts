// A run's first reads (ports/firstReads.ts) through the store's collections: the plain-state
// head, and for a LangGraph graph the newest root checkpoint, read side by side. What the run
// itself would read first, through the same collections (plainState.ts headRecord,
// checkpointer.ts newestRootCheckpoint).
import { newestRootCheckpoint } from '../../domain/agent/checkpointer.ts';
import { PlainStateStore } from '../../domain/agent/plainState.ts';
import type { FirstReads } from '../../domain/ports/firstReads.ts';
import type { Store } from '../../domain/ports/store.ts';
import type { FirstReadsKind, KnownReads } from '../../domain/agent/runContext.ts';

export class CollectionFirstReads implements FirstReads {
  private readonly plain: PlainStateStore;

  constructor(private readonly store: Store) {
    this.plain = new PlainStateStore(store);
  }

  async read(threadId: string, kind: Exclude<FirstReadsKind, undefined>): Promise<KnownReads> {
    // both kinds: a LangGraph run reads the plain state too (plain runs on its thread go ahead of its input)
    const [plainHead, newest] = await Promise.all([
      this.plain.headRecord(threadId),
      kind === 'langgraph' ? newestRootCheckpoint(this.store, threadId) : undefined,
    ]);
    return kind === 'langgraph' ? { plainHead, newestCheckpoint: newest ?? null } : { plainHead };
  }
}
