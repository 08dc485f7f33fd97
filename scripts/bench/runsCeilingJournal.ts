// The runs ceiling's journal of checkpoints (runsCeilingServer.ts, runsCeilingWorker.ts): every
// checkpoint and every write LangGraph's MemorySaver keeps is also appended, as the bytes it
// serialised, to a file before the run goes on — the least a server that loses nothing to a
// kill -9 adds to LangGraph's own work.
import fs from 'node:fs';
import type { Streamable } from './graphAloneGraph.ts';

type Config = { configurable?: Record<string, string> };
/** What MemorySaver keeps, as its source (@langchain/langgraph-checkpoint memory.js) names it. */
type Saver = {
  storage: Record<string, Record<string, Record<string, [Uint8Array, Uint8Array, string | undefined]>>>;
  writes: Record<string, Record<string, [string, string, Uint8Array]>>;
  put(config: Config, checkpoint: { id: string }, metadata: unknown): Promise<{ configurable: Record<string, string> }>;
  putWrites(config: Config, writes: unknown[], taskId: string): Promise<void>;
};

const NEWLINE = Buffer.from('\n');

/** Makes the graph's MemorySaver append what it keeps to `file`. */
export function journalCheckpoints(graph: Streamable, file: string): void {
  const fd = fs.openSync(file, 'a');
  const saver = graph.checkpointer as Saver;
  const put = saver.put.bind(saver);
  const putWrites = saver.putWrites.bind(saver);
  saver.put = async (config, checkpoint, metadata) => {
    const made = await put(config, checkpoint, metadata);
    const { thread_id, checkpoint_ns } = made.configurable;
    const [bytes, meta] = saver.storage[thread_id][checkpoint_ns][checkpoint.id];
    fs.writevSync(fd, [bytes, meta, NEWLINE]);
    return made;
  };
  saver.putWrites = async (config, writes, taskId) => {
    await putWrites(config, writes, taskId);
    const c = config.configurable ?? {};
    // MemorySaver's key for a checkpoint's writes
    const kept = saver.writes[JSON.stringify([c.thread_id, c.checkpoint_ns, c.checkpoint_id])] ?? {};
    const mine = Object.values(kept).filter(([task]) => task === taskId);
    if (mine.length) fs.writevSync(fd, [...mine.map(([, , value]) => value), NEWLINE]);
  };
}
