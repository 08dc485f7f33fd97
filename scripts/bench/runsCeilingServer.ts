// Child process of runsCeiling.ts: the least a server can do for the fresh rounds' runs (issue 86).
// A bare node:http server answers only what the SDK's runs scenario asks (create a thread,
// create a run, join a thread's last run, list a thread's runs) and runs each thread's runs in
// order with LangGraph alone (its MemorySaver; no store, no trace, no event log, no queue records),
// at most ten at once as the servers do. `RUNS_CEILING_WORKERS`: 0 runs the graph on this loop
// beside the HTTP, n ≥ 1 on n worker threads (a thread's runs always on the same one).
// `RUNS_CEILING_JOURNAL=<dir>`: every thread and run made and every run's end (with the
// thread's values) appended to a file before it is answered, and the checkpoints too
// (runsCeilingJournal.ts): the least a server that loses nothing to a kill -9 adds.
// `node --import tsx runsCeilingServer.ts <port> <graph file:export>`.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { loadGraphAlone, type Streamable } from './graphAloneGraph.ts';
import { journalCheckpoints } from './runsCeilingJournal.ts';

const [portArg, spec] = process.argv.slice(2);
const WORKERS = Number(process.env.RUNS_CEILING_WORKERS ?? 1);
const AT_ONCE = 10;
const JOURNAL = process.env.RUNS_CEILING_JOURNAL;
const journalFd = JOURNAL ? fs.openSync(path.join(JOURNAL, 'main.log'), 'a') : -1;
/** One line appended to the journal (when there is one) before what it records is answered. */
const record = (line: string) => {
  if (journalFd >= 0) fs.writeSync(journalFd, `${line}\n`);
};

type Run = {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: 'pending' | 'running' | 'success' | 'error';
  created_at: string;
  content: string;
};
type Thread = { id: string; runs: Run[]; queued: Run[]; running: boolean; joins: Map<string, ((body: string) => void)[]>; values: unknown; lane: number };

const threads = new Map<string, Thread>();
let running = 0;
/** Threads with a queued run and none running, waiting for one of the ten places. */
const ready: Thread[] = [];

/** Where a thread's runs execute: this loop's graph, or a worker thread's. */
interface Lane {
  start(thread: Thread, run: Run): void;
}
const lanes: Lane[] = [];
const byRun = new Map<string, { thread: Thread; run: Run }>();

function finished(runId: string, values: unknown, failed: boolean): void {
  const at = byRun.get(runId);
  if (!at) return;
  byRun.delete(runId);
  at.run.status = failed ? 'error' : 'success';
  at.thread.values = values;
  at.thread.running = false;
  running -= 1;
  const body = JSON.stringify(values ?? null);
  record(`["end",${JSON.stringify(runId)},${JSON.stringify(at.run.status)},${body}]`);
  for (const answer of at.thread.joins.get(runId) ?? []) answer(body);
  at.thread.joins.delete(runId);
  if (at.thread.queued.length) ready.push(at.thread);
  pump();
}

function pump(): void {
  while (running < AT_ONCE && ready.length) {
    const thread = ready.shift()!;
    const run = thread.queued.shift()!;
    thread.running = true;
    run.status = 'running';
    running += 1;
    byRun.set(run.run_id, { thread, run });
    lanes[thread.lane].start(thread, run);
  }
}

if (WORKERS === 0) {
  const graph: Streamable = await loadGraphAlone(spec);
  if (JOURNAL) journalCheckpoints(graph, path.join(JOURNAL, 'checkpoints.log'));
  lanes.push({
    start(thread, run) {
      let values: unknown;
      const input = { messages: [{ role: 'user', content: run.content }] };
      void (async () => {
        for await (const chunk of await graph.stream(input, { configurable: { thread_id: thread.id }, streamMode: 'values' })) values = chunk;
      })().then(
        () => finished(run.run_id, values, false),
        () => finished(run.run_id, values, true),
      );
    },
  });
} else {
  for (let i = 0; i < WORKERS; i += 1) {
    // tsx's loader does not reach worker threads: the worker registers its own, then loads its file
    const entry = new URL('./runsCeilingWorker.ts', import.meta.url).href;
    const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
    const worker = new Worker(boot, { eval: true, argv: [spec] });
    worker.on('message', (m: { runId: string; values: unknown; failed: boolean }) => finished(m.runId, m.values, m.failed));
    worker.on('error', (err) => {
      console.error(err);
      process.exit(1);
    });
    lanes.push({ start: (thread, run) => worker.postMessage({ threadId: thread.id, runId: run.run_id, content: run.content }) });
  }
}

let nextLane = 0;
const send = (res: http.ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://x');
    const parts = url.pathname.split('/').filter(Boolean);
    const now = new Date().toISOString();
    if (req.method === 'GET' && url.pathname === '/ok') return send(res, 200, '{"ok":true}');
    if (req.method === 'POST' && url.pathname === '/threads') {
      const id = randomUUID();
      const answer = JSON.stringify({ thread_id: id, created_at: now, updated_at: now, metadata: {}, status: 'idle', config: {}, values: null });
      record(`["thread",${answer}]`);
      threads.set(id, { id, runs: [], queued: [], running: false, joins: new Map(), values: null, lane: nextLane++ % Math.max(1, lanes.length) });
      return send(res, 200, answer);
    }
    const thread = parts[0] === 'threads' ? threads.get(parts[1] ?? '') : undefined;
    if (!thread || parts[2] !== 'runs') return send(res, 404, '{"detail":"Not Found"}');
    if (req.method === 'POST' && parts.length === 3) {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { assistant_id: string; input?: { messages?: { content: string }[] } };
      const run: Run = {
        run_id: randomUUID(),
        thread_id: thread.id,
        assistant_id: body.assistant_id,
        status: 'pending',
        created_at: now,
        content: body.input?.messages?.[0]?.content ?? '',
      };
      thread.runs.push(run);
      thread.queued.push(run);
      const { content: _content, ...shown } = run;
      const answer = JSON.stringify({ ...shown, updated_at: now, metadata: {}, multitask_strategy: 'enqueue' });
      record(`["run",${answer},${JSON.stringify(body.input ?? null)}]`);
      if (!thread.running && thread.queued.length === 1) ready.push(thread);
      pump();
      return send(res, 200, answer);
    }
    if (req.method === 'GET' && parts.length === 3) {
      const limit = Number(url.searchParams.get('limit') ?? 10);
      return send(
        res,
        200,
        JSON.stringify(
          [...thread.runs]
            .reverse()
            .slice(0, limit)
            .map(({ content: _c, ...r }) => r),
        ),
      );
    }
    if (req.method === 'GET' && parts.length === 5 && parts[4] === 'join') {
      const run = thread.runs.find((r) => r.run_id === parts[3]);
      if (!run) return send(res, 404, '{"detail":"Not Found"}');
      if (run.status === 'success' || run.status === 'error') return send(res, 200, JSON.stringify(thread.values ?? null));
      const waiting = thread.joins.get(run.run_id) ?? [];
      waiting.push((text) => send(res, 200, text));
      thread.joins.set(run.run_id, waiting);
      return;
    }
    send(res, 404, '{"detail":"Not Found"}');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(portArg), '127.0.0.1');
