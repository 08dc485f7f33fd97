// The store's checkpoints (checkpointer.ts) as LangGraph's BaseCheckpointSaver, what a compiled
// graph is given. A module of its own, imported by StoreCheckpointer.langGraphSaver when the
// first graph is loaded: extending the class imports LangGraph, which nothing else on the
// store side does. Every call is the store checkpointer's; the rest (getNextVersion, get) is
// LangGraph's own.
import { BaseCheckpointSaver, type Checkpoint, type CheckpointMetadata, type CheckpointTuple } from '@langchain/langgraph';
import type { RunnableConfig } from '@langchain/core/runnables';

type ChannelVersions = Parameters<BaseCheckpointSaver['put']>[3];
type ListOptions = Parameters<BaseCheckpointSaver['list']>[1];

/** What the saver reads and writes through: StoreCheckpointer (named by its shape: it imports this module). */
export type StoreCheckpoints = Pick<BaseCheckpointSaver, 'getTuple' | 'list' | 'put' | 'putWrites' | 'deleteThread'> & {
  serde?: BaseCheckpointSaver['serde'];
};

export class LangGraphSaver extends BaseCheckpointSaver {
  constructor(private readonly store: StoreCheckpoints) {
    super(store.serde);
    // the store reads and writes with this serialiser from now on (a test may wrap its methods)
    store.serde = this.serde;
  }

  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.store.getTuple(config);
  }

  list(config: RunnableConfig, options?: ListOptions): AsyncGenerator<CheckpointTuple> {
    return this.store.list(config, options);
  }

  put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    return this.store.put(config, checkpoint, metadata, newVersions);
  }

  putWrites(config: RunnableConfig, writes: [string, unknown][], taskId: string): Promise<void> {
    return this.store.putWrites(config, writes, taskId);
  }

  deleteThread(threadId: string): Promise<void> {
    return this.store.deleteThread(threadId);
  }
}
