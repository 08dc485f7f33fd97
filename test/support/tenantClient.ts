// Tenant B of the flood rig (tenantFlood.ts), from a process of its own as a real tenant is: B's
// client on the server's own event loop waited behind A's work for its own reads of the answer
// too (each read took the loop's turns on both sides), which a tenant elsewhere never does. B reads
// one of its threads every `everyMs`, and runs its runs, on request; beside each read's latency,
// the CPU time the server's main thread (its event loop) spent while the read waited, read from
// /proc (Linux; elsewhere none): the work the loop did ahead of B's answer, which the machine's
// other work does not inflate.
import { spawn, type ChildProcess } from 'node:child_process';

export interface TenantClientOptions {
  url: string;
  key: string;
  threadId: string;
  /** The server's process: its main thread's schedstat is read around each of B's reads. */
  serverPid: number;
  everyMs: number;
}

export interface Reads {
  /** Each read's latency, ms. */
  latencies: number[];
  /** The server's main thread's CPU time while each read waited, ms (empty where /proc is not). */
  loops: number[];
  /**
   * The time each read spent waiting for a core, ms: the server's main thread's wait on the run
   * queue while the read waited, plus B's own (its client's main thread): what the machine's other
   * work (A's flooding client among it) cost the read, not the server's work (empty where /proc is not).
   */
  coreWaits: number[];
  /** Each read's start and end, µs of the monotonic clock (process.hrtime; V8's CPU profiles use the same). */
  spans: [number, number][];
}

export interface TenantClient {
  /** B's reads for `ms`, one every `everyMs`. */
  reads(ms: number): Promise<Reads>;
  /** One run of B's (`body` of POST /threads/{id}/runs/wait) from its creation to its result, ms. */
  run(body: unknown): Promise<number>;
  stop(): void;
}

const CLIENT = `
const fs = require('node:fs');
const { url, key, threadId, serverPid, everyMs } = JSON.parse(process.env.TENANT_OPTIONS);
const headers = { 'x-api-key': key, 'content-type': 'application/json' };
// a main thread's task has its process's id; its schedstat's first two fields are the ns it ran
// and the ns it waited on the run queue for a core
const schedstat = (pid) => '/proc/' + pid + '/task/' + pid + '/schedstat';
const stat = (file) => { try { const [ran, waited] = fs.readFileSync(file, 'latin1').split(' ', 2); return [Number(ran) / 1e6, Number(waited) / 1e6]; } catch { return [NaN, NaN]; } };
const serverStat = schedstat(serverPid);
const ownStat = schedstat(process.pid);
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function reads(ms) {
  const out = { latencies: [], loops: [], coreWaits: [], spans: [] };
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    const startUs = nowUs();
    const [ranBefore, serverWaitedBefore] = stat(serverStat);
    const ownWaitedBefore = stat(ownStat)[1];
    const res = await fetch(url + '/threads/' + threadId, { headers });
    await res.arrayBuffer();
    const [ran, serverWaited] = stat(serverStat);
    const ownWaited = stat(ownStat)[1];
    const took = performance.now() - started;
    if (res.status !== 200) throw new Error('B was refused: ' + res.status);
    out.latencies.push(took);
    if (!Number.isNaN(ran)) {
      out.loops.push(ran - ranBefore);
      out.coreWaits.push(serverWaited - serverWaitedBefore + ownWaited - ownWaitedBefore);
    }
    out.spans.push([startUs, nowUs()]);
    await sleep(Math.max(0, everyMs - took));
  }
  return out;
}
async function run(body) {
  const started = performance.now();
  const res = await fetch(url + '/threads/' + threadId + '/runs/wait', { method: 'POST', headers, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error('B was refused: ' + res.status);
  return performance.now() - started;
}
process.on('message', async ({ id, what, arg }) => {
  try {
    process.send({ id, value: what === 'reads' ? await reads(arg) : await run(arg) });
  } catch (err) {
    process.send({ id, error: String(err) });
  }
});
process.send('ready');
`;

export async function startTenantClient(options: TenantClientOptions): Promise<TenantClient> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CLIENT], {
    env: { ...process.env, TENANT_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve(value: never): void; reject(err: Error): void }>();
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  child.on('message', (m: 'ready' | { id: number; value?: never; error?: string }) => {
    if (m === 'ready') return ready();
    const waiter = pending.get(m.id)!;
    pending.delete(m.id);
    if (m.error) waiter.reject(new Error(m.error));
    else waiter.resolve(m.value!);
  });
  child.on('exit', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('tenant client exited'));
  });
  let ids = 0;
  const ask = <T>(what: string, arg: unknown) =>
    new Promise<T>((resolve, reject) => {
      const id = ++ids;
      pending.set(id, { resolve: resolve as (value: never) => void, reject });
      child.send({ id, what, arg });
    });
  await started;
  return {
    reads: (ms) => ask<Reads>('reads', ms),
    run: (body) => ask<number>('run', body),
    stop: () => void child.kill(),
  };
}
