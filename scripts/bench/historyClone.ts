// `npx tsx scripts/bench/historyClone.ts [runs]` (issue 91): a server of the embedded store holding
// `runs` (default 100,000; HISTORY_RUNS too) runs of the shipped `agent` graph, made in minutes
// rather than the hour history.ts takes through the API. A server on a fresh data directory runs
// HISTORY_TEMPLATE_THREADS (default 20) threads of 10 real runs through the API; stopped, its
// directory is opened in this process with the store's own write path (openJournalStore), and
// each template thread's records (the thread, its runs, checkpoints, writes and channel values)
// are written again as new threads until there are `runs` runs: the same JSON with the thread's
// and each run's id replaced by new ones and every time moved back by a minute a copy. The server
// is then started again on the directory and reads copies back through the API: a copy's state,
// history and runs must read as its template's, ids and times aside. Then it checks the issue's
// bounds on the server holding that history: heap and RSS within 1.5× of the fresh server's plus
// the configured cache (AGENTPLANE_STORE_CACHE_MB, default 64), once loaded and again after
// HISTORY_MORE_RUNS (default 200) more real runs, read once the run workers the runs left idle
// have been retired (historyMeasures.ts afterRetirement: read at a fixed 30 s, RSS raced the
// retirement's own 30 s of idleness, 279.2 MB one run and 391.9 the next); old threads' reads at p99 within 2× a hot one's;
// the restart to /ok. It prints what the RSS is made of (smaps_rollup) beside. HISTORY_KEEP=1 keeps
// the directory (under .bench/). HISTORY_SNAPSHOTS=1 also takes heap snapshots of the server (fresh,
// holding the history, after the more runs and the retirement) and prints what each holds more of than the one
// before, by constructor (heapSnapshotDiff.ts): where the heap over the bound is; with HISTORY_KEEP
// they are kept beside the directory (snapshots/fresh, holding, after-more-runs.heapsnapshot).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, expectStatus, request, type Agentplane } from './agentplane.ts';
import { RUNS_PER_THREAD, agentRuns } from './agentRuns.ts';
import { afterRetirement, bound, mb, metric, oldAgainstHot, rssParts, settled, startHistoryServer } from './historyMeasures.ts';
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { grown, snapshotOf, type Tally } from './heapSnapshotDiff.ts';

const RUNS = Number(process.argv[2] ?? process.env.HISTORY_RUNS ?? 100_000);
const TEMPLATES = Number(process.env.HISTORY_TEMPLATE_THREADS ?? 20);
const MORE_RUNS = Number(process.env.HISTORY_MORE_RUNS ?? 200);
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface Stored {
  seq: number;
  collection: string;
  id: string;
  json: string;
}

/**
 * Every record of the template threads, by thread, and each thread's run ids, read from the
 * snapshot's shards (a stopped server leaves every record there, each shard the JSON document
 * `{"records": {"<id>": [seq, value]}}`).
 */
function templates(dataDir: string, threadIds: string[]): Map<string, { records: Stored[]; runs: string[] }> {
  const found = new Map(threadIds.map((id) => [id, { records: [] as Stored[], runs: [] as string[] }]));
  const collections = path.join(dataDir, 'collections');
  for (const collection of fs.readdirSync(collections)) {
    for (const file of fs.readdirSync(path.join(collections, collection)).filter((name) => /^shard-\d+\.json$/.test(name))) {
      const { records } = JSON.parse(fs.readFileSync(path.join(collections, collection, file), 'utf8')) as { records: Record<string, [number, object]> };
      for (const [id, [seq, value]] of Object.entries(records)) {
        const json = JSON.stringify(value);
        for (const [threadId, template] of found) {
          if (!id.includes(threadId) && !json.includes(threadId)) continue;
          template.records.push({ seq, collection, id, json });
          if (collection === 'runs') template.runs.push(id);
        }
      }
    }
  }
  // written again in the order they were written
  for (const template of found.values()) template.records.sort((a, b) => a.seq - b.seq);
  return found;
}

/** Writes copies of the templates until the store holds `runs` runs; returns the copies made, each with its template. */
async function copy(
  dataDir: string,
  templateOf: Map<string, { records: Stored[]; runs: string[] }>,
  runs: number,
): Promise<{ thread: string; template: string; ids: Map<string, string> }[]> {
  const store = await openJournalStore({ dataDir });
  const made: { thread: string; template: string; ids: Map<string, string> }[] = [];
  try {
    await store.loaded();
    const threads = [...templateOf.keys()];
    const copies = Math.max(0, Math.ceil(runs / RUNS_PER_THREAD) - threads.length);
    for (let k = 0; k < copies; k += 1) {
      const template = threads[k % threads.length]!;
      const { records, runs: runIds } = templateOf.get(template)!;
      // a thread's runs are listed by their ids, which are time-ordered: a copy's keep their template's beginning, and a random end
      const ids = new Map<string, string>([
        [template, randomUUID()],
        ...runIds.map((id) => [id, id.slice(0, 24) + randomUUID().slice(24)] as [string, string]),
      ]);
      const back = (copies - k) * 60_000;
      const renamed = (text: string) => {
        let out = text;
        for (const [from, to] of ids) out = out.replaceAll(from, to);
        return out;
      };
      const ops = records.map(({ collection, id, json }) => ({
        collection,
        id: renamed(id),
        value: JSON.parse(renamed(json).replace(ISO_TIME, (time) => new Date(Date.parse(time) - back).toISOString())) as object,
      }));
      await store.write(ops);
      made.push({ thread: ids.get(template)!, template, ids });
      if (k % 500 === 0) console.log(`  ${(threads.length + k) * RUNS_PER_THREAD} runs stored; load ${load()}`);
      if (k % 20 === 0) await new Promise((resolve) => setImmediate(resolve)); // the store's background snapshots go on meanwhile
    }
    // the history snapshotted whole, as a long-running server's would be: a stop leaves the
    // journal when its snapshot would rewrite far more (closeRewriteBytes), and the first
    // restart measured would replay up to maxJournalBytes of the clone's writes
    await store.flush();
  } finally {
    await store.close();
  }
  return made;
}

/** A thread's state, history and runs as the API answers them, with a copy's ids put back to its template's and every time masked. */
async function readBack(ap: Agentplane, threadId: string, ids: Map<string, string>): Promise<string> {
  const answers = [];
  for (const [pathname, init] of [
    [`/threads/${threadId}`, {}],
    [`/threads/${threadId}/state`, {}],
    [`/threads/${threadId}/history`, { method: 'POST', json: { limit: 10 } }],
    [`/threads/${threadId}/runs?limit=20`, {}],
  ] as const) {
    const res = await ap.api(pathname, init);
    expectStatus(`read ${pathname}`, res, 200);
    answers.push(res.text);
  }
  let text = answers.join('\n');
  for (const [from, to] of ids) text = text.replaceAll(to, from);
  return text.replace(ISO_TIME, 'TIME');
}

fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'history-clone-'));
const dataDir = path.join(work, 'data');
const who = { key: `bench-${randomUUID()}`, tenant: randomUUID() };
const snapshots = process.env.HISTORY_SNAPSHOTS ? path.join(work, 'snapshots') : undefined;
if (snapshots) fs.mkdirSync(snapshots);
const nodeArgs = snapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`] : [];
/** A heap snapshot of the server (HISTORY_SNAPSHOTS), tallied, then deleted (kept with HISTORY_KEEP, for its retainers). */
async function snapshot(of: Agentplane, name: string): Promise<Tally | undefined> {
  if (!snapshots) return undefined;
  return snapshotOf(of.pid, snapshots, (file) =>
    process.env.HISTORY_KEEP ? fs.renameSync(file, path.join(snapshots, `${name}.heapsnapshot`)) : fs.rmSync(file),
  );
}
function printGrown(title: string, from: Tally | undefined, to: Tally | undefined): void {
  if (!from || !to) return;
  const rows = grown(from, to);
  console.log(`${title}: all nodes ${mb(rows.reduce((n, row) => n + row.bytes, 0))} MB`);
  for (const row of rows.slice(0, 30)) console.log(`${mb(row.bytes).toFixed(1).padStart(8)} MB ${String(row.count).padStart(9)} × ${row.key}`);
}
let ap: Agentplane = await startHistoryServer(dataDir, work, who, nodeArgs);
try {
  const fresh = await settled(ap);
  const freshTally = await snapshot(ap, 'fresh');
  console.log(`fresh: start ${ap.startMs.toFixed(0)} ms, heap ${mb(fresh.heap)} MB, RSS ${mb(fresh.rss)} MB ${JSON.stringify(rssParts(ap))}; load ${load()}`);
  const threads: string[] = [];
  await agentRuns(ap, TEMPLATES * RUNS_PER_THREAD, 8, (_, threadId) => threads.push(threadId));
  const afterTemplates = await settled(ap);
  console.log(
    `after ${TEMPLATES * RUNS_PER_THREAD} real runs: heap ${mb(afterTemplates.heap)} MB, RSS ${mb(afterTemplates.rss)} MB ${JSON.stringify(rssParts(ap))}`,
  );
  await ap.stop();
  const started = performance.now();
  const templateOf = templates(dataDir, threads);
  const copies = await copy(dataDir, templateOf, RUNS);
  console.log(`${copies.length} threads copied in ${((performance.now() - started) / 1000).toFixed(0)} s; load ${load()}`);
  const restarted = performance.now();
  ap = await startHistoryServer(dataDir, work, who, nodeArgs);
  const ok = await request(`${ap.url}/ok`);
  // startAgentplane waits until the graphs are served, which a start without history takes too
  const restartMs = performance.now() - restarted;
  console.log(
    `restart to its graphs served and /ok: ${restartMs.toFixed(0)} ms (status ${ok.status}; its first 200 at ${ap.startMs.toFixed(0)} ms); load ${load()}`,
  );
  // the copies read as their templates, ids and times aside: what is stored is what real runs store
  for (const made of copies.filter((_, i) => i % Math.max(1, Math.floor(copies.length / 20)) === 0)) {
    const [copied, template] = [await readBack(ap, made.thread, made.ids), await readBack(ap, made.template, new Map())];
    let at = 0;
    while (at < copied.length && copied[at] === template[at]) at += 1;
    assert.ok(
      copied === template,
      `copy ${made.thread} of ${made.template} reads ${copied.slice(at - 100, at + 100)} where it reads ${template.slice(at - 100, at + 100)}`,
    );
  }
  const count = await ap.api('/threads/search', { method: 'POST', json: { limit: 1 } });
  expectStatus('search', count, 200);
  const held = await settled(ap, 10_000);
  console.log(
    `holding ${RUNS} runs: heap ${mb(held.heap)} MB (bound ${mb(bound(fresh.heap))}), RSS ${mb(held.rss)} MB (bound ${mb(bound(fresh.rss))}) ${JSON.stringify(rssParts(ap))}; load ${load()}`,
  );
  const heldTally = await snapshot(ap, 'holding');
  printGrown('the heap holding the history over the fresh one', freshTally, heldTally);
  const reads = await oldAgainstHot(
    ap,
    threads.at(-1)!,
    copies.slice(0, 200).map((c) => c.thread),
  );
  console.log(`reads: hot p99 ${reads.hot.toFixed(2)} ms, old p99 ${reads.old.toFixed(2)} ms (${(reads.old / reads.hot).toFixed(2)}×)`);
  await agentRuns(ap, MORE_RUNS, 8);
  const ranUntil = performance.now();
  const after = await settled(ap);
  // `later` is read once the workers the runs left idle have been retired (see afterRetirement),
  // then as every reading here, after the idle collection's settle
  const retired = await afterRetirement(ap, ranUntil);
  const later = await settled(ap);
  console.log(
    `after ${MORE_RUNS} more runs: heap ${mb(after.heap)} MB, RSS ${mb(after.rss)} MB; after the workers' retirement (threads ${retired.threadsBefore} -> ${retired.threadsAfter}, ${(retired.waitedMs / 1000).toFixed(1)} s after the runs) and a settle: heap ${mb(later.heap)} MB, RSS ${mb(later.rss)} MB ${JSON.stringify(rssParts(ap))}; external ${mb(await metric(ap, 'nodejs_external_memory_bytes'))} MB; load ${load()}`,
  );
  printGrown(`the heap ${MORE_RUNS} runs later over the one holding the history`, heldTally, await snapshot(ap, 'after-more-runs'));
  const verdicts = {
    heap: Math.max(held.heap, later.heap) <= bound(fresh.heap),
    rss: Math.max(held.rss, later.rss) <= bound(fresh.rss),
    oldReads: reads.old <= 2 * reads.hot,
    restart: restartMs <= 1_000 && ok.status === 200,
  };
  console.log(
    JSON.stringify({
      runs: RUNS,
      freshHeapMB: mb(fresh.heap),
      heldHeapMB: mb(held.heap),
      freshMB: mb(fresh.rss),
      heldMB: mb(held.rss),
      laterMB: mb(later.rss),
      verdicts,
    }),
  );
} finally {
  await ap.stop();
  if (!process.env.HISTORY_KEEP) fs.rmSync(work, { recursive: true, force: true });
}
