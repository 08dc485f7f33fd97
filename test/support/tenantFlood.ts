// A tenant floods, another keeps its service? (issue 83, "done when": B's p99 within 1.5x of
// its quiet figure, its runs within one run's length.) On loopback: a server in process with
// agent-server auth on and every limit at its default (the embedded store in a temporary
// directory); tenant A floods it from a process of its own at the lowest priority
// (floodClient.ts) while tenant B, from a process of its own (tenantClient.ts), reads one of its
// threads every 15 ms and runs its own run. Quiet and flooded spells alternate (A paused and
// resumed, its runs let end in between), so both see the same machine. Measured by
// scripts/bench/tenantFlood.ts.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer, type TestServer } from './server.ts';
import { testProject } from '../fixtures/agent-server/project.ts';
import { startFlood, type Flood, type FloodKind, type FloodReport, type FlooderPolicy } from './floodClient.ts';
import { startTenantClient, type Reads } from './tenantClient.ts';
import { recordGcPauses, type GcTally } from './gcPauses.ts';
import { recordLoopHolds } from './loopHolds.ts';
import { recordThreadCpu, type ThreadCpu } from './threadCpu.ts';

/** How long each of A's runs lasts: B's run may wait at most this long more than alone. */
export const RUN_MS = 1_000;
const B_RUN_MS = 200;
/** How often B reads: a client well within any tenant's rate (AGENTPLANE_MAX_REQUESTS_PER_SECOND, 100), often enough that a spell's p99 is not its slowest read. */
const B_READ_EVERY_MS = 15;
/** The server's defaults (AGENTPLANE_MAX_REQUESTS_PER_SECOND, AGENTPLANE_MAX_REQUEST_BURST). */
const DEFAULT_RATE = 100;
const DEFAULT_BURST = 250;
/** A's key-less WebSockets, and the pace of one address's refused upgrades (protocolSocket.ts). */
const KEYLESS_SOCKETS = 64;
const KEYLESS_BURST = 300;
const KEYLESS_RATE = 100;

export interface FloodSetup {
  inMemory?: boolean;
  /** AGENTPLANE_MAX_REQUESTS_PER_SECOND (and burst) of the server, when not its default. */
  rate?: string;
  connections?: number;
  keylessSockets?: number;
  kinds?: FloodKind[];
  /** AGENTPLANE_RUN_WORKERS of the server; by default the product's (runs in worker threads). */
  runWorkers?: string;
  /** Record the loop's holds while B reads (loopHolds.ts: a 1-ms timer on the server's loop, in both spells). */
  loopHolds?: boolean;
  /** How A's flooding client yields the cores (floodClient.ts FlooderPolicy). */
  flooderPolicy?: FlooderPolicy;
}

/** B's figures of the spells measured, and what A's flood cost the server. */
export interface FloodSpells {
  idleReads: number[];
  floodReads: number[];
  /**
   * The CPU time of the server's main thread (its event loop) while each read of B's waited,
   * quiet and flooded: the loop's work ahead of B's answer, without the run workers' time nor
   * the time the machine's other work took the CPU from the loop. On a quiet machine it is B's
   * latency less the time spent waiting on nothing. Empty where /proc is not.
   */
  idleReadLoop: number[];
  floodReadLoop: number[];
  /** How long each read of B's waited for a core (the server's main thread and B's client on the run queue, Reads.coreWaits), quiet and flooded. */
  idleCoreWaits: number[];
  floodCoreWaits: number[];
  /** The server's main thread's CPU ms between two turns of its loop while B read (loopHolds.ts), quiet and flooded; empty unless asked. */
  idleHolds: number[];
  floodHolds: number[];
  /** Each flooded read's start and end (µs of process.hrtime, as V8's CPU profiles) and its read_loop, ms: where a profile's slow reads are. */
  floodReadSpans: [number, number, number][];
  idleRuns: number[];
  floodRuns: number[];
  /** Each round's figures, quiet then flooded: B's p99, the loop's p99 while B waited, B's run. */
  rounds: { idleP99: number; floodP99: number; idleLoopP99: number; floodLoopP99: number; idleRun: number; floodRun: number }[];
  /** CPU ms this process (the server, workers included) spent in the quiet spells' reads, in the flooded spells, and how long those lasted. */
  idleCpu: number;
  idleMs: number;
  floodCpu: number;
  floodMs: number;
  /** The event loop's delay p99 while A flooded, in ms. */
  floodLoopDelayP99: number;
  /**
   * The main thread's garbage collections while B read, quiet and flooded (summed over the
   * rounds), and of B's flooded reads slower than 1.5x their round's quiet p99, how many waited
   * through a young-generation collection (a scavenge) of the server's.
   */
  gc: { idle: GcTally; flood: GcTally; slowFloodReads: number; slowFloodReadsInScavenge: number };
  /** Of those slow flooded reads, how many waited 1 ms or more for a core: the machine's tail (A's client's CPU among it), not the server's work. */
  slowFloodReadsWaitingForCore: number;
  /**
   * Of those slow flooded reads, each one's time neither on the server's main thread's CPU (its
   * loop share) nor waiting for a core: the read's main thread off the CPU and not runnable
   * (blocked in a system call: a write that waits on the disk's writeback, a lock) or B's client's
   * own side. What a bad spell waits behind when neither the loop's CPU nor the run queue is. [read ms, off-CPU ms]
   */
  slowFloodReadsOffCpu: Array<[number, number]>;
  /** This process's threads' CPU ms while B read, quiet and flooded (threadCpu.ts): the request loop, the threads below its priority, the others. */
  threads: { idle: ThreadCpu; flood: ThreadCpu };
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
      // the server as it runs, not as the other tests run it: every reply checked against its
      // schema and serialized twice (AGENTPLANE_VALIDATE_RESPONSES) doubled what each of A's
      // answers cost, and the simulated deployer's 5-ms phases drove A's deployments 20 times
      // as often as its default's
      AGENTPLANE_VALIDATE_RESPONSES: '0',
      AGENTPLANE_PHASE_MS: '100',
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

  const clientB = await startTenantClient({ url: server.url, key: keyB, threadId: threadB, serverPid: process.pid, everyMs: B_READ_EVERY_MS });
  const runBody = { assistant_id: 'slow', input: { messages: [] }, context: { delay_ms: B_RUN_MS } };

  /** A's runs pending or running (each stateless run's thread is busy until it ends). */
  async function busyOfA(): Promise<number> {
    const res = await as(keyA, 'POST', '/threads/count', { status: 'busy' });
    return res.status === 200 ? ((await res.json()) as number) : Infinity;
  }

  const flood = await startFlood({
    url: server.url,
    key: keyA,
    connections: setup.connections ?? 32,
    keylessSockets: setup.keylessSockets ?? KEYLESS_SOCKETS,
    runMs: RUN_MS,
    kinds: setup.kinds,
    policy: setup.flooderPolicy,
  });
  /**
   * Waits until A's bursts are spent (at most 5 s), and 100 ms more for the server to answer them:
   * its requests' (AGENTPLANE_MAX_REQUEST_BURST and a second's rate) and its key-less upgrades'
   * (refusalPace.ts: 300, then 100 a second), each let in at once by design after a quiet spell.
   */
  async function burstPassed(): Promise<void> {
    const until = performance.now() + 5_000;
    const rate = setup.rate ? Number(setup.rate) : DEFAULT_RATE;
    const burst = setup.rate ? rate : DEFAULT_BURST;
    const keyless = setup.keylessSockets ?? KEYLESS_SOCKETS;
    const spent = ({ requests, keylessRefused }: { requests: number; keylessRefused: number }) =>
      requests >= burst + rate && (keyless === 0 || keylessRefused >= KEYLESS_BURST + KEYLESS_RATE);
    while (!spent(await flood.sent()) && performance.now() < until) await sleep(50);
    await sleep(100);
  }

  /** Waits for A's runs to end (at most a minute). */
  async function aRunsEnded(): Promise<void> {
    const until = performance.now() + 60_000;
    while ((await busyOfA()) > 0 && performance.now() < until) await sleep(200);
  }

  // warm both paths, and A's: the first of each of A's requests compiles its validators and
  // handlers (one deployment creation's took ~200 ms), a cost of the server's start, not of a flood
  await clientB.reads(500);
  await clientB.run(runBody);
  await flood.resume();
  await sleep(1_000);
  await flood.pause();
  await aRunsEnded();

  return {
    server,
    flood,
    async spells(rounds, windowMs) {
      const out: FloodSpells = {
        idleReads: [],
        floodReads: [],
        idleReadLoop: [],
        floodReadLoop: [],
        idleCoreWaits: [],
        floodCoreWaits: [],
        idleHolds: [],
        floodHolds: [],
        floodReadSpans: [],
        idleRuns: [],
        floodRuns: [],
        rounds: [],
        idleCpu: 0,
        idleMs: 0,
        floodCpu: 0,
        floodMs: 0,
        floodLoopDelayP99: 0,
        gc: { idle: emptyTally(), flood: emptyTally(), slowFloodReads: 0, slowFloodReadsInScavenge: 0 },
        slowFloodReadsWaitingForCore: 0,
        slowFloodReadsOffCpu: [],
        threads: { idle: { main: 0, lowered: 0, others: 0 }, flood: { main: 0, lowered: 0, others: 0 } },
      };
      const addThreads = (sum: ThreadCpu, add: ThreadCpu) => {
        sum.main += add.main;
        sum.lowered += add.lowered;
        sum.others += add.others;
      };
      const loopDelay = monitorEventLoopDelay({ resolution: 5 });
      const gc = recordGcPauses();
      for (let round = 0; round < rounds; round++) {
        let cpu = cpuMs();
        let holds = setup.loopHolds ? recordLoopHolds() : undefined;
        let threads = recordThreadCpu();
        const idle: Reads = await clientB.reads(windowMs);
        addThreads(out.threads.idle, threads.stop());
        out.idleHolds.push(...(holds?.stop() ?? []));
        out.idleCpu += cpuMs() - cpu;
        out.idleMs += windowMs;
        const idleRun = await clientB.run(runBody);
        await flood.resume();
        loopDelay.enable();
        cpu = cpuMs();
        const started = performance.now();
        // the flood's first burst passes (A's bucket, full after the quiet spell, admits
        // AGENTPLANE_MAX_REQUEST_BURST at once by design), then B is measured while A keeps on
        await burstPassed();
        holds = setup.loopHolds ? recordLoopHolds() : undefined;
        threads = recordThreadCpu();
        const flooded: Reads = await clientB.reads(windowMs);
        addThreads(out.threads.flood, threads.stop());
        out.floodHolds.push(...(holds?.stop() ?? []));
        const floodRun = await clientB.run(runBody);
        loopDelay.disable();
        await flood.pause();
        out.floodCpu += cpuMs() - cpu;
        out.floodMs += performance.now() - started;
        out.idleReads.push(...idle.latencies);
        out.floodReads.push(...flooded.latencies);
        out.idleReadLoop.push(...idle.loops);
        out.floodReadLoop.push(...flooded.loops);
        out.idleCoreWaits.push(...idle.coreWaits);
        out.floodCoreWaits.push(...flooded.coreWaits);
        out.floodReadSpans.push(...flooded.spans.map(([from, to], i) => [from, to, flooded.loops[i] ?? NaN] as [number, number, number]));
        out.idleRuns.push(idleRun);
        out.floodRuns.push(floodRun);
        const spanOf = (reads: Reads) => [reads.spans[0]?.[0] ?? 0, reads.spans.at(-1)?.[1] ?? 0] as const;
        addTally(out.gc.idle, gc.tally(...spanOf(idle)));
        addTally(out.gc.flood, gc.tally(...spanOf(flooded)));
        const slow = 1.5 * p99(idle.latencies);
        flooded.spans.forEach(([from, to], i) => {
          if (flooded.latencies[i]! <= slow) return;
          out.gc.slowFloodReads++;
          if ((flooded.coreWaits[i] ?? 0) >= 1) out.slowFloodReadsWaitingForCore++;
          out.slowFloodReadsOffCpu.push([flooded.latencies[i]!, Math.max(0, flooded.latencies[i]! - (flooded.loops[i] ?? 0) - (flooded.coreWaits[i] ?? 0))]);
          if (gc.within(from, to).some((p) => p.minor)) out.gc.slowFloodReadsInScavenge++;
        });
        out.rounds.push({
          idleP99: p99(idle.latencies),
          floodP99: p99(flooded.latencies),
          idleLoopP99: p99(idle.loops),
          floodLoopP99: p99(flooded.loops),
          idleRun,
          floodRun,
        });
        // A's runs end before the next quiet spell
        await aRunsEnded();
      }
      out.floodLoopDelayP99 = loopDelay.percentile(99) / 1e6;
      gc.stop();
      return out;
    },
    async close() {
      const report = await flood.stop();
      clientB.stop();
      await server.close();
      // the temporary data directory the server was given goes with it (a test server leaves its own)
      if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
      return report;
    },
  };
}

export const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
export const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))];

const emptyTally = (): GcTally => ({ minor: 0, minorMs: 0, maxMinorMs: 0, major: 0, majorMs: 0 });
function addTally(sum: GcTally, add: GcTally): void {
  sum.minor += add.minor;
  sum.minorMs += add.minorMs;
  sum.maxMinorMs = Math.max(sum.maxMinorMs, add.maxMinorMs);
  sum.major += add.major;
  sum.majorMs += add.majorMs;
}
