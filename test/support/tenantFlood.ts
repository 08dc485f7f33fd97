// A tenant floods, another keeps its service? (issue 83, "done when": B's p99 within 1.5x of
// its quiet figure, its runs within one run's length.) On loopback: a server in process with
// agent-server auth on and every limit at its default (the embedded store in a temporary
// directory); tenant A floods it from a process of its own at the lowest priority
// (floodClient.ts) while tenant B reads one of its threads every 25 ms and runs its own run.
// Quiet and flooded spells alternate (A paused and resumed, its runs let end in between), so
// both see the same machine. Measured by scripts/bench/tenantFlood.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer, type TestServer } from './server.ts';
import { testProject } from '../fixtures/agent-server/project.ts';
import { startFlood, type Flood, type FloodKind, type FloodReport } from './floodClient.ts';

/** How long each of A's runs lasts: B's run may wait at most this long more than alone. */
export const RUN_MS = 1_000;
const B_RUN_MS = 200;
/** How often B reads: a client well within any tenant's rate. */
const B_READ_EVERY_MS = 25;

export interface FloodSetup {
  inMemory?: boolean;
  /** AGENTPLANE_MAX_REQUESTS_PER_SECOND (and burst) of the server, when not its default. */
  rate?: string;
  connections?: number;
  keylessSockets?: number;
  kinds?: FloodKind[];
  /** AGENTPLANE_RUN_WORKERS of the server; by default the product's (runs in worker threads). */
  runWorkers?: string;
}

/** B's figures of the spells measured, and what A's flood cost the server. */
export interface FloodSpells {
  idleReads: number[];
  floodReads: number[];
  /**
   * The CPU time the process spent while each read of B's waited, quiet and flooded: the work the
   * server did ahead of B's answer, without the time the machine's other work took the CPU from
   * it (the same as the latency on an idle machine, less what waits on nothing). With the runs
   * on the request loop (runWorkers '0') it is the loop's alone.
   */
  idleReadCpu: number[];
  floodReadCpu: number[];
  idleRuns: number[];
  floodRuns: number[];
  /** CPU ms this process spent in the quiet spells' reads, in the flooded spells, and how long those lasted. */
  idleCpu: number;
  idleMs: number;
  floodCpu: number;
  floodMs: number;
  /** The event loop's delay p99 while A flooded, in ms. */
  floodLoopDelayP99: number;
}

export interface FloodRig {
  server: TestServer;
  flood: Flood;
  /** `rounds` of a quiet spell then a flooded one, B reading for `windowMs` in each and then running a run. */
  spells(rounds: number, windowMs: number): Promise<FloodSpells>;
  /** Ends the flood and the server: what A was answered in all. */
  close(): Promise<FloodReport>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU time this process (the server and B) spent, in ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export async function floodRig(setup: FloodSetup = {}): Promise<FloodRig> {
  const keyA = `key-a-${randomUUID()}`;
  const keyB = `key-b-${randomUUID()}`;
  const server = await startTestServer({
    dataDir: setup.inMemory ? null : 'temp',
    project: testProject,
    runWorkers: setup.runWorkers ?? 'default',
    env: {
      AGENTPLANE_AGENT_SERVER_AUTH: '1',
      AGENTPLANE_API_KEYS: `${keyA}:${randomUUID()},${keyB}:${randomUUID()}`,
      ...(setup.rate ? { AGENTPLANE_MAX_REQUESTS_PER_SECOND: setup.rate, AGENTPLANE_MAX_REQUEST_BURST: setup.rate } : {}),
    },
  });
  const as = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const threadB = ((await (await as(keyB, 'POST', '/threads', {})).json()) as { thread_id: string }).thread_id;

  /**
   * B's reads of its thread for `ms`, one every B_READ_EVERY_MS: each one's latency, and the CPU
   * time this process spent while it waited (`cpu`, when given).
   */
  async function readLatencies(ms: number, cpu?: number[]): Promise<number[]> {
    const latencies: number[] = [];
    const until = performance.now() + ms;
    while (performance.now() < until) {
      const started = performance.now();
      const cpuBefore = cpuMs();
      const res = await as(keyB, 'GET', `/threads/${threadB}`);
      await res.arrayBuffer();
      assert.equal(res.status, 200, 'B was refused');
      cpu?.push(cpuMs() - cpuBefore);
      const took = performance.now() - started;
      latencies.push(took);
      await sleep(Math.max(0, B_READ_EVERY_MS - took));
    }
    return latencies;
  }

  /** How long B's run takes, from its creation to its result. */
  async function runLatency(): Promise<number> {
    const started = performance.now();
    const res = await as(keyB, 'POST', `/threads/${threadB}/runs/wait`, { assistant_id: 'slow', input: { messages: [] }, context: { delay_ms: B_RUN_MS } });
    await res.arrayBuffer();
    assert.equal(res.status, 200, 'B was refused');
    return performance.now() - started;
  }

  /** A's runs pending or running (each stateless run's thread is busy until it ends). */
  async function busyOfA(): Promise<number> {
    const res = await as(keyA, 'POST', '/threads/count', { status: 'busy' });
    return res.status === 200 ? ((await res.json()) as number) : Infinity;
  }

  const flood = await startFlood({
    url: server.url,
    key: keyA,
    connections: setup.connections ?? 32,
    keylessSockets: setup.keylessSockets ?? 64,
    runMs: RUN_MS,
    kinds: setup.kinds,
  });
  // warm both paths
  await readLatencies(500);
  await runLatency();

  return {
    server,
    flood,
    async spells(rounds, windowMs) {
      const out: FloodSpells = {
        idleReads: [],
        floodReads: [],
        idleReadCpu: [],
        floodReadCpu: [],
        idleRuns: [],
        floodRuns: [],
        idleCpu: 0,
        idleMs: 0,
        floodCpu: 0,
        floodMs: 0,
        floodLoopDelayP99: 0,
      };
      const loopDelay = monitorEventLoopDelay({ resolution: 5 });
      for (let round = 0; round < rounds; round++) {
        let cpu = cpuMs();
        out.idleReads.push(...(await readLatencies(windowMs, out.idleReadCpu)));
        out.idleCpu += cpuMs() - cpu;
        out.idleMs += windowMs;
        out.idleRuns.push(await runLatency());
        await flood.resume();
        loopDelay.enable();
        cpu = cpuMs();
        const started = performance.now();
        // the flood's first burst passes, then B is measured while A keeps on
        await sleep(300);
        out.floodReads.push(...(await readLatencies(windowMs, out.floodReadCpu)));
        out.floodRuns.push(await runLatency());
        loopDelay.disable();
        await flood.pause();
        out.floodCpu += cpuMs() - cpu;
        out.floodMs += performance.now() - started;
        // A's runs end before the next quiet spell
        const until = performance.now() + 60_000;
        while ((await busyOfA()) > 0 && performance.now() < until) await sleep(200);
      }
      out.floodLoopDelayP99 = loopDelay.percentile(99) / 1e6;
      return out;
    },
    async close() {
      const report = await flood.stop();
      await server.close();
      return report;
    },
  };
}

export const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
export const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))];
