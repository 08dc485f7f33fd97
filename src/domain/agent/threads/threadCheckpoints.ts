// Writes to a thread's checkpoints outside runs: state updates (as a node, optionally
// forking from a checkpoint), supersteps on creation, the latest checkpoint's metadata,
// copies, and pruning to the latest state. Plain-function graphs and LangGraph graphs keep
// their checkpoints in different places (plainState.ts, checkpointer.ts); this module
// hides which. It knows nothing of HTTP: failures are kinds the caller maps.
import type { Store } from '../../ports/store.ts';
import { fail, ok, type Outcome } from '../../outcome.ts';
import type { StoreCheckpointer } from '../checkpoints/checkpointer.ts';
import { forkCheckpointId, type CheckpointRef } from '../checkpoints/checkpoints.ts';
import { applyUpdate, normaliseInput } from '../graphs/graphRunners.ts';
import { nowIso } from '../../clock.ts';
import { uuid7 } from '../ids.ts';
import type { PlainStateStore } from '../checkpoints/plainState.ts';
import type { ThreadRecord } from '../records.ts';
import type { ThreadStateReader } from './threadState.ts';

export interface StateUpdate {
  values?: unknown;
  as_node?: string;
  checkpoint?: CheckpointRef | null;
  checkpoint_id?: string;
}

export interface WrittenCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
}

export type CheckpointWrite = Outcome<WrittenCheckpoint, 'invalid' | 'not_found'>;

/** Nodes a plain-function graph accepts in `as_node`: itself, or the input. */
const PLAIN_INPUT_NODES = new Set(['__input__', '__start__']);

export class ThreadCheckpoints {
  constructor(
    private readonly store: Store,
    private readonly stateReader: ThreadStateReader,
    private readonly plain: PlainStateStore,
    private readonly checkpointer: StoreCheckpointer,
  ) {}

  /** `POST /threads/{id}/state`: a new checkpoint, child of the latest or of the named one. */
  async update(thread: ThreadRecord, update: StateUpdate): Promise<CheckpointWrite> {
    const graph = await this.stateReader.graph(thread);
    if (!graph) return fail('invalid', `Thread ${thread.thread_id} has no graph ID`);
    const from = forkCheckpointId(update);
    if (graph.kind === 'langgraph') {
      const ns = update.checkpoint?.checkpoint_ns ?? '';
      if (from && !(await this.checkpointer.getTuple({ configurable: { thread_id: thread.thread_id, checkpoint_ns: ns, checkpoint_id: from } }))) {
        return notFound(thread.thread_id, from);
      }
      const config = { configurable: { thread_id: thread.thread_id, checkpoint_ns: ns, graph_id: graph.id, ...(from ? { checkpoint_id: from } : {}) } };
      try {
        const next = await graph.graph.updateState(config, update.values ?? null, update.as_node);
        return ok(written(thread.thread_id, next.configurable));
      } catch (err) {
        return fail('invalid', (err as Error).message);
      }
    }
    const asNode = update.as_node;
    if (asNode !== undefined && asNode !== graph.id && !PLAIN_INPUT_NODES.has(asNode)) {
      return fail('invalid', `Node "${asNode}" does not exist in graph "${graph.id}"; a plain-function graph accepts "${graph.id}" or "__input__"`);
    }
    const base = await this.plain.read(thread.thread_id, from);
    if (from && !base) return notFound(thread.thread_id, from);
    let values: Record<string, unknown> = base?.values ?? { messages: [] };
    const updates = Array.isArray(update.values) ? update.values : update.values === null || update.values === undefined ? [] : [update.values];
    for (const item of updates) {
      const normalised = normaliseInput(item);
      if (normalised) values = applyUpdate(values, normalised);
    }
    const source = asNode && PLAIN_INPUT_NODES.has(asNode) ? 'input' : 'update';
    const metadata = { source, step: base ? base.step + 1 : -1, writes: { [asNode ?? graph.id]: update.values ?? null }, parents: {}, graph_id: graph.id };
    const checkpointId = uuid7();
    const { ops } = this.plain.commitOps(thread.thread_id, base, values, { checkpointId, createdAt: nowIso(), metadata });
    await this.store.write(ops);
    return ok({ thread_id: thread.thread_id, checkpoint_ns: '', checkpoint_id: checkpointId });
  }

  /** `supersteps` of thread creation: each superstep's updates applied together, in order. */
  async applySupersteps(
    thread: ThreadRecord,
    supersteps: { updates: { values?: unknown; as_node?: string; command?: unknown }[] }[],
  ): Promise<CheckpointWrite | undefined> {
    const graph = await this.stateReader.graph(thread);
    if (!graph) return fail('invalid', `Thread ${thread.thread_id} has no graph ID: set metadata.graph_id to create it with supersteps`);
    if (graph.kind === 'langgraph') {
      try {
        const next = await graph.graph.bulkUpdateState(
          { configurable: { thread_id: thread.thread_id, checkpoint_ns: '', graph_id: graph.id } },
          supersteps.map((s) => ({ updates: s.updates.map((u) => ({ values: u.values, asNode: u.as_node })) })),
        );
        return ok(written(thread.thread_id, next.configurable));
      } catch (err) {
        return fail('invalid', (err as Error).message);
      }
    }
    let last: CheckpointWrite | undefined;
    for (const superstep of supersteps) {
      for (const u of superstep.updates) {
        last = await this.update(thread, { values: u.values, as_node: u.as_node });
        if (!last.ok) return last;
      }
    }
    return last;
  }

  /** `PATCH /threads/{id}/state`; false when the thread has no checkpoint yet. */
  async patchLatestMetadata(thread: ThreadRecord, metadata: Record<string, unknown>): Promise<boolean> {
    const graph = await this.stateReader.graph(thread);
    if (graph?.kind === 'langgraph') return this.checkpointer.patchLatestMetadata(thread.thread_id, metadata);
    return this.plain.patchHeadMetadata(thread.thread_id, metadata);
  }

  /** Copies every checkpoint of `from` to the thread `to` (both graph kinds' stores). */
  async copy(from: string, to: string): Promise<void> {
    await this.checkpointer.copyThread(from, to);
    const ops = await this.plain.copyOps(from, to);
    if (ops.length) await this.store.write(ops);
  }

  /** Deletes every checkpoint but the latest (per namespace). */
  async keepLatest(threadId: string): Promise<void> {
    await this.checkpointer.prune(threadId);
    await this.plain.keepLatest(threadId);
  }

  /** How many checkpoints the thread keeps, in both stores. */
  async count(threadId: string): Promise<number> {
    return (await this.checkpointer.count(threadId)) + (await this.plain.count(threadId));
  }
}

function notFound(threadId: string, checkpointId: string): CheckpointWrite {
  return fail('not_found', `Checkpoint ${checkpointId} not found on thread ${threadId}`);
}

function written(threadId: string, configurable: Record<string, unknown> | undefined): WrittenCheckpoint {
  return { thread_id: threadId, checkpoint_ns: String(configurable?.checkpoint_ns ?? ''), checkpoint_id: String(configurable?.checkpoint_id ?? '') };
}
