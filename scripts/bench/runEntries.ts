// `npx tsx scripts/bench/runEntries.ts <tree> [runs]` (issue 91): what the embedded store's entries
// of runs cost in the tree given (this one, or a checkout of a baseline), in process: the heap a run
// shaped as the `agent` graph's costs the store (its id included) written and loaded again after a
// restart, and the CPU of the store calls a run makes on its run and thread (put, updates, the
// look-ups by status and thread, a newest-first page of threads by updated_at). Prints one line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { randomUUID } from 'node:crypto';

type Opened = { store: { close(): Promise<void>; loaded(): Promise<void> }; runs: Table; threads: Table };
interface Table {
  put(id: string, value: object): Promise<void>;
  update(id: string, change: (value: Record<string, unknown>) => object): Promise<unknown>;
  get(id: string): Promise<unknown>;
  list(options: object): Promise<unknown[]>;
}

const tree = path.resolve(process.argv[2] ?? '.');
const count = Number(process.argv[3] ?? 20_000);
const { openJournalStore } = (await import(path.join(tree, 'src/adapters/embedded/journalStore.ts'))) as {
  openJournalStore(options: object): Promise<Opened['store'] & { collection(name: string, options?: object): Table }>;
};
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-run-entries-'));
const open = async (): Promise<Opened> => {
  const store = await openJournalStore({ dataDir, cacheBytes: 0 });
  return {
    store,
    runs: store.collection('runs', { indexes: ['thread_id', 'status'] }),
    threads: store.collection('threads', { indexes: ['status', 'owner'] }),
  };
};
const now = () => new Date().toISOString();
try {
  let before = heapUsed();
  const first = await open();
  const cpu = process.cpuUsage();
  for (let t = 0; t < count / 10; t += 1) {
    const threadId = randomUUID();
    await first.threads.put(threadId, {
      thread_id: threadId,
      status: 'idle',
      owner: 'o',
      created_at: now(),
      updated_at: now(),
      metadata: { graph_id: 'agent' },
    });
    for (let r = 0; r < 10; r += 1) {
      const runId = randomUUID();
      const run = { run_id: runId, thread_id: threadId, owner: 'o', assistant_id: 'a', created_at: now(), kwargs: { input: 'x'.repeat(500) } };
      await first.runs.put(runId, { ...run, status: 'pending', updated_at: now() });
      await first.threads.update(threadId, (thread) => ({ ...thread, status: 'busy', updated_at: now() }));
      await first.runs.update(runId, (value) => ({ ...value, status: 'running', updated_at: now() }));
      await first.runs.list({ where: { status: 'pending' }, fields: ['run_id', 'owner'] });
      await first.runs.list({ where: { thread_id: threadId }, fields: ['run_id'] });
      await first.runs.get(runId);
      await first.runs.update(runId, (value) => ({ ...value, status: 'success', updated_at: now() }));
      await first.threads.update(threadId, (thread) => ({ ...thread, status: 'idle', updated_at: now() }));
    }
    await first.threads.list({ where: { owner: 'o' }, orderBy: 'updated_at', reverse: true, limit: 10 });
  }
  const used = process.cpuUsage(cpu);
  const written = (heapUsed() - before) / count;
  await first.store.close();
  before = heapUsed();
  const again = await open();
  await again.store.loaded();
  const loaded = (heapUsed() - before) / count;
  await again.store.close();
  const perRun = (bytes: number) => Math.round(bytes);
  console.log(
    JSON.stringify({
      tree: path.basename(tree),
      runs: count,
      writtenBytesARun: perRun(written),
      loadedBytesARun: perRun(loaded),
      cpuMsARun: (used.user + used.system) / 1000 / count,
    }),
  );
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
