// `npx tsx scripts/bench/storeWritesAlternate.ts <other tree> [rounds] [records]` (issue 91): the
// embedded store's write path in process, this tree's against another's (a checkout of a
// baseline), in alternating rounds on fresh data directories: `records` (default 20,000) puts of
// a run-like record (~2 KB) into the paged `runs` collection with its indexes, each put a
// journal line as a request's, then a snapshot (flush). Prints each tree's CPU ms per 1,000
// puts, with the snapshot, and the medians' ratio, with the load average. STORE_WRITES_BODY=messages
// puts ten LangChain-like messages (~4 KB of JSON, mostly small objects, parsed anew for each put
// as a request's body is) in place of the one 2 KB string: what a walk of each value costs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './agentplane.ts';

const other = process.argv[2];
if (!other) throw new Error('usage: storeWritesAlternate.ts <other tree> [rounds] [records]');
const rounds = Number(process.argv[3] ?? 5);
const records = Number(process.argv[4] ?? 20_000);
type Open = (options: { dataDir: string }) => Promise<{
  collection(name: string, options?: { indexes?: string[] }): { put(id: string, value: object): Promise<void> };
  flush(): Promise<void>;
  close(): Promise<void>;
}>;
const trees = await Promise.all(
  [ROOT, path.resolve(other)].map(async (root) => ({
    name: root === ROOT ? 'this tree' : path.basename(root),
    open: (await import(path.join(root, 'src/adapters/embedded/journalStore.ts'))).openJournalStore as Open,
    ms: [] as number[],
  })),
);
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'store-writes-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const messages = JSON.stringify(
  Array.from({ length: 10 }, (_, m) => ({
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', m % 2 ? 'AIMessage' : 'HumanMessage'],
    kwargs: {
      content: `message ${m} `.repeat(8),
      additional_kwargs: {},
      response_metadata: { tokens: 12 + m, score: 0.5 + m },
      id: `msg-${m}`,
      tool_calls: [],
    },
  })),
);
const body = (): unknown => (process.env.STORE_WRITES_BODY === 'messages' ? JSON.parse(messages) : 'x'.repeat(2000));
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

for (let i = 0; i < rounds; i += 1) {
  for (const tree of i % 2 === 0 ? trees : [...trees].reverse()) {
    const dataDir = path.join(work, `data-${i}-${tree.name}`);
    const store = await tree.open({ dataDir });
    const runs = store.collection('runs', { indexes: ['thread_id', 'status'] });
    const started = cpuMs();
    for (let n = 0; n < records; n += 1) {
      const id = `run-${i}-${n}`;
      await runs.put(id, {
        run_id: id,
        thread_id: `thread-${n % 500}`,
        status: n % 100 ? 'success' : 'pending',
        owner: 'o',
        created_at: 'now',
        updated_at: 'now',
        body: body(),
      });
    }
    await store.flush();
    tree.ms.push(((cpuMs() - started) / records) * 1000);
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
fs.rmSync(work, { recursive: true, force: true });
for (const t of trees) console.log(`${t.name}: median ${median(t.ms).toFixed(1)} CPU ms per 1,000 puts of ${t.ms.map((m) => m.toFixed(1)).join(', ')}`);
console.log(
  `this tree ÷ other: ${(median(trees[0]!.ms) / median(trees[1]!.ms)).toFixed(3)}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
