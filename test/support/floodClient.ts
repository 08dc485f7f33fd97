// A tenant flooding a server (tenantFlood.ts, scripts/bench/tenantFlood.ts) from a process of its own: `connections` loops, each sending its
// next request as soon as the one before is answered — thread creations, stateless runs of the
// slow graph, deployments, store items, in turn — and `keylessSockets` WebSocket upgrades
// without a key, each opened again as soon as the server lets it go. The flood is paused and
// resumed on demand (so quiet and flooded spells can alternate), and reports what it was answered.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export interface FloodOptions {
  url: string;
  key: string;
  connections: number;
  keylessSockets: number;
  /** How long each of the flood's runs lasts (the slow graph's delay). */
  runMs: number;
  /** Which requests the connections send, in turn (all four unless named). */
  kinds?: FloodKind[];
  /** How the flooder yields the machine's cores (FLOODER_POLICIES); `idle` where chrt is, unless named. */
  policy?: FlooderPolicy;
}

/**
 * How the flooder's process is started: `nice` at niceness 19; `idle` under SCHED_IDLE too
 * (chrt), where a core it holds is given up as soon as the server or B wakes. At niceness 19
 * alone, on 2 cores, the server's main thread and B's client waited on the run queue behind it
 * for a few ms now and then (the kernel lets a running task go on until its slice's fair point):
 * A's client's CPU on B's latency, which a tenant flooding from elsewhere never costs.
 */
export type FlooderPolicy = 'nice' | 'idle';
const FLOODER_POLICIES: Record<FlooderPolicy, string[]> = {
  nice: ['nice', '-n', '19'],
  idle: ['chrt', '--idle', '0', 'nice', '-n', '19'],
};

export type FloodKind = 'threads' | 'runs' | 'deployments' | 'store';

export interface FloodReport {
  /** Answers by status. */
  statuses: Record<string, number>;
  /** Key-less upgrades the server answered and let go. */
  keylessRefused: number;
  /** The first answer's detail of each status other than 2xx. */
  details: Record<string, string>;
  /** CPU ms the flooder's process spent in all (what it took of the machine's cores beside the server). */
  cpuMs: number;
}

export interface Flood {
  /** Floods until paused; resolves once it has started. */
  resume(): Promise<void>;
  /** Stops sending; resolves once every request it sent is answered and every key-less socket let go. */
  pause(): Promise<void>;
  /** Requests sent, and key-less upgrades refused, since the flood last resumed. */
  sent(): Promise<{ requests: number; keylessRefused: number }>;
  /** Ends the flood: what it was answered in all. */
  stop(): Promise<FloodReport>;
}

const FLOODER = `
const net = require('node:net');
const { url, key, connections, keylessSockets, runMs, kinds } = JSON.parse(process.env.FLOOD_OPTIONS);
const statuses = {};
const details = {};
let keylessRefused = 0;
let flooding = false;
let busy = [];
let sent = 0;
let refusedSinceResume = 0;
const headers = { 'x-api-key': key, 'content-type': 'application/json' };
const every = {
  threads: () => ['POST', '/threads', {}],
  runs: () => ['POST', '/runs', { assistant_id: 'slow', input: { messages: [] }, context: { delay_ms: runMs } }],
  deployments: (i) => ['POST', '/v2/deployments', { name: 'flood-' + i + '-' + Math.random().toString(36).slice(2), source: 'github',
    source_config: { repo_url: 'https://github.com/acme/agent', deployment_type: 'dev' },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' } }],
  store: (i) => ['PUT', '/store/items', { namespace: ['flood'], key: 'k' + i + '-' + Math.random(), value: { i } }],
};
const requests = (kinds ?? Object.keys(every)).map((kind) => every[kind]);
const count = (status) => (statuses[status] = (statuses[status] ?? 0) + 1);
async function loop(n) {
  for (let i = n; flooding; i += connections) {
    const [method, path, body] = requests[i % requests.length](i);
    sent++;
    try {
      const res = await fetch(url + path, { method, headers, body: JSON.stringify(body) });
      const text = await res.text();
      count(res.status);
      if (res.status >= 300 && !(res.status in details)) details[res.status] = text.slice(0, 300);
    } catch (err) {
      count(err.cause?.code ?? err.message);
    }
  }
}
function keyless() {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname, () => {
      socket.write('GET /threads/00000000-0000-4000-8000-000000000000/stream/events HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\n'
        + 'Connection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n');
    });
    // held open from this side (no end()): only the server can let it go
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => { keylessRefused++; refusedSinceResume++; resolve(); });
  });
}
async function keylessLoop() {
  while (flooding) await keyless();
}
process.on('message', async (what) => {
  if (what === 'sent') return process.send({ requests: sent, keylessRefused: refusedSinceResume });
  if (what === 'resume' && !flooding) {
    flooding = true;
    sent = 0;
    refusedSinceResume = 0;
    busy = [...Array.from({ length: connections }, (_, n) => loop(n)), ...Array.from({ length: keylessSockets }, keylessLoop)];
  } else if (what === 'pause' || what === 'stop') {
    flooding = false;
    await Promise.all(busy);
  }
  const { user, system } = process.cpuUsage();
  process.send(what === 'stop' ? { statuses, keylessRefused, details, cpuMs: (user + system) / 1000 } : what);
});
process.send('ready');
`;

/** Starts the flooder, paused. It runs at the lowest priority: what the flood costs the server is measured, not what sending it costs this machine. */
export async function startFlood(options: FloodOptions): Promise<Flood> {
  // SCHED_IDLE where chrt is (Linux's util-linux), else niceness alone
  const policy = options.policy ?? (spawnSync('chrt', ['--help']).error ? 'nice' : 'idle');
  const [command, ...args] = FLOODER_POLICIES[policy];
  const child: ChildProcess = spawn(command, [...args, process.execPath, '-e', FLOODER], {
    env: { ...process.env, FLOOD_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // each question's listeners go with its answer: the rig asks many (flood.sent() while waiting)
  const answer = <T>() =>
    new Promise<T>((resolve, reject) => {
      const failed = (err: Error) => {
        child.off('message', answered);
        reject(err);
      };
      const answered = (m: unknown) => {
        child.off('error', failed);
        resolve(m as T);
      };
      child.once('message', answered);
      child.once('error', failed);
    });
  const ask = async <T>(what: string): Promise<T> => {
    const answered = answer<T>();
    child.send(what);
    return answered;
  };
  await answer();
  return {
    resume: () => ask('resume'),
    pause: () => ask('pause'),
    sent: () => ask<{ requests: number; keylessRefused: number }>('sent'),
    async stop() {
      const report = await ask<FloodReport>('stop');
      child.kill();
      return report;
    },
  };
}
