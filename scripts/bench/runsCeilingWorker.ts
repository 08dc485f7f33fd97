// A worker thread of runsCeilingServer.ts: runs each run it is given with LangGraph alone (the
// bench graph, its MemorySaver; its checkpoints journaled to a file of this thread's own when
// the server has a journal) and answers with the run's last values.
import path from 'node:path';
import { parentPort, threadId } from 'node:worker_threads';
import { loadGraphAlone } from './graphAloneGraph.ts';
import { journalCheckpoints } from './runsCeilingJournal.ts';

const graph = await loadGraphAlone(process.argv[2]);
const journal = process.env.RUNS_CEILING_JOURNAL;
if (journal) journalCheckpoints(graph, path.join(journal, `worker-${threadId}.log`));

parentPort!.on('message', (m: { threadId: string; runId: string; content: string }) => {
  let values: unknown;
  const input = { messages: [{ role: 'user', content: m.content }] };
  void (async () => {
    for await (const chunk of await graph.stream(input, { configurable: { thread_id: m.threadId }, streamMode: 'values' })) values = chunk;
  })().then(
    // the values as plain data (their messages are class instances): what a server answers the join with
    () => parentPort!.postMessage({ runId: m.runId, values: JSON.parse(JSON.stringify(values)), failed: false }),
    () => parentPort!.postMessage({ runId: m.runId, values: null, failed: true }),
  );
});
