// The fan-out phase's ceiling (issue 87): a bare node:http broadcaster that serves the thread
// event streams the way the machine allows at best — `POST /threads/{id}/stream/events` as
// Server-Sent Events and `GET` on the same path upgraded to a WebSocket (`subscription.subscribe`
// answered, then raw text frames) — and `GET /ok`. Told to start with a recorded window, it
// plays on each thread the events agentplane's matching thread sent under its subscribers,
// each clump (those agentplane made in the same ms) at its time in that window (fanoutTimeline.ts):
// the same frames at the same rate over the same time, stamped when sent, encoded once, and
// written to each subscriber of the thread in one write. No store, no runs, no log, no filter:
// what is left is the sockets.
// usage: node --import tsx scripts/bench/fanoutCeiling.ts <port>
//   POST /bench/start {threads: [{id, events: [event JSON, …]}], fromMs}: the recorded window;
//   POST /bench/start {events: [event JSON, …], runsPerSecondPerThread}: one run on a loop (fanoutCpu.ts);
//   POST /bench/stop
// With `answers` ({start, join}: agentplane's last run.start answer and join body) in the start's body,
// `POST /threads/{id}/commands` and `GET /threads/{id}/runs/{run}/join` are answered with them: the
// runs' own requests, paced at agentplane's rate by fanout.ts (BENCH_FANOUT_CEILING_FULL), at the
// least a server must spend on them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { WebSocketServer } from 'ws';
import { webSocketTextFrame } from '../../src/runtime/transports/websocket/webSocketFrame.ts';
import { stamped, windowClumps, type Clump, type Template } from './fanoutTimeline.ts';

const PATH = /^\/threads\/([^/?]+)\/stream\/events$/;
/** The full ceiling's drivers (fanout.ts BENCH_FANOUT_CEILING_FULL): run.start and join answered with agentplane's recorded answers. */
const COMMANDS = /^\/threads\/([^/?]+)\/commands$/;
const JOIN = /^\/threads\/([^/?]+)\/runs\/([^/?]+)\/join$/;
let answers = { start: Buffer.from('{"type":"success","id":0,"result":{"run_id":"r"}}'), join: Buffer.from('{}') };
const OK = Buffer.from('{"ok":true}');

interface Thread {
  sse: Set<ServerResponse>;
  sockets: Set<Duplex>;
}

const threads = new Map<string, Thread>();
const thread = (id: string) => {
  let t = threads.get(id);
  if (!t) threads.set(id, (t = { sse: new Set(), sockets: new Set() }));
  return t;
};

/**
 * A thread of this process that spends CPU for each event played (`engine` in the start's body,
 * fanout.ts BENCH_FANOUT_CEILING_ENGINE): what a server whose runs' engine (store, worker messages,
 * event log) ran on a thread beside its request loop, at a niceness of its own, would add; it
 * answers each burn with a message, as such an engine would hand the loop what to send.
 */
let engine: { worker: Worker; usPerEvent: number } | undefined;
const ENGINE = `
const { parentPort } = require('node:worker_threads');
const os = require('node:os');
parentPort.on('message', (m) => {
  if (m.nice !== undefined) { try { os.setPriority(0, m.nice); } catch {} return; }
  const until = performance.now() + m.us / 1000;
  while (performance.now() < until);
  parentPort.postMessage(0);
});`;
function startEngine(usPerEvent: number, nice: number): void {
  const worker = new Worker(ENGINE, { eval: true });
  worker.on('message', () => {});
  worker.postMessage({ nice });
  engine = { worker, usPerEvent };
}

/** One clump of a thread's events: framed once, every subscriber sent them in one write. */
function playClump(t: Thread, events: Template[]): void {
  if (engine) engine.worker.postMessage({ us: events.length * engine.usPerEvent });
  const now = Date.now();
  const sse: Buffer[] = [];
  const ws: Buffer[] = [];
  for (const e of events) {
    const json = stamped(e, now);
    sse.push(Buffer.from(`event: ${e.method}\nid: ${e.seq}\ndata: ${json}\n\n`));
    ws.push(webSocketTextFrame(Buffer.from(json)));
  }
  const sseBytes = Buffer.concat(sse);
  const wsBytes = Buffer.concat(ws);
  for (const res of t.sse) res.write(sseBytes);
  for (const socket of t.sockets) socket.write(wsBytes);
}

/** Timers of clumps to come, cleared by a stop. */
const later = new Set<NodeJS.Timeout>();

/** A thread's clumps, each at its offset from now. */
function playClumps(t: Thread, clumps: Clump[]): void {
  for (const { offsetMs, events } of clumps) {
    if (offsetMs === 0) playClump(t, events);
    else {
      const timer = setTimeout(() => {
        later.delete(timer);
        playClump(t, events);
      }, offsetMs);
      later.add(timer);
    }
  }
}

let playing: NodeJS.Timeout[] = [];

/** The recorded window (fanoutTimeline.ts): each thread's own events at their times in agentplane's loaded window. */
function startTimeline(recorded: { id: string; events: string[] }[], fromMs: number): void {
  const plans = recorded.map(({ id, events }) => ({ t: thread(id), clumps: windowClumps(events, fromMs) }));
  for (const { t, clumps } of plans) playClumps(t, clumps);
}

/**
 * One run's events played on every thread at `runsPerSecondPerThread`, until stopped (fanoutCpu.ts:
 * CPU per event delivered, where the load's timeline does not matter); the threads out of step.
 */
function startLoop(events: string[], runsPerSecondPerThread: number): void {
  const first = (JSON.parse(events[0] ?? '{}') as { params?: { timestamp?: number } }).params?.timestamp ?? 0;
  const run = windowClumps(events, first);
  const every = 1000 / runsPerSecondPerThread;
  const all = [...threads.values()];
  all.forEach((t, i) => {
    const begin = setTimeout(
      () => {
        playClumps(t, run);
        playing.push(setInterval(() => playClumps(t, run), every));
      },
      (every * i) / all.length,
    );
    playing.push(begin);
  });
}

function stop(): void {
  for (const timer of playing) clearTimeout(timer);
  for (const timer of later) clearTimeout(timer);
  later.clear();
  playing = [];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

const server = createServer((req, res) => {
  if (req.url === '/ok') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': OK.length });
    return void res.end(OK);
  }
  const command = req.method === 'POST' ? COMMANDS.exec(req.url ?? '') : null;
  if (command) {
    void readBody(req).then((text) => {
      // the recorded answer, its id the command's (as agentplane answers)
      const { id } = JSON.parse(text) as { id: number };
      const body = Buffer.from(answers.start.toString('utf8').replace(/"id":\d+/, `"id":${id}`));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    });
    return;
  }
  if (req.method === 'GET' && JOIN.test(req.url ?? '')) {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': answers.join.length });
    return void res.end(answers.join);
  }
  const match = req.method === 'POST' ? PATH.exec(req.url ?? '') : null;
  if (match) {
    void readBody(req).then(() => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
      res.flushHeaders();
      const t = thread(match[1]!);
      t.sse.add(res);
      res.on('close', () => t.sse.delete(res));
    });
    return;
  }
  if (req.method === 'POST' && (req.url === '/bench/start' || req.url === '/bench/stop')) {
    void readBody(req).then((text) => {
      if (req.url === '/bench/start') {
        const body = JSON.parse(text) as {
          events?: string[];
          runsPerSecondPerThread?: number;
          threads?: { id: string; events: string[] }[];
          fromMs?: number;
          answers?: { start: string; join: string };
          engine?: { usPerEvent: number; nice: number };
        };
        if (body.engine && !engine) startEngine(body.engine.usPerEvent, body.engine.nice);
        if (body.answers?.start) answers = { start: Buffer.from(body.answers.start), join: Buffer.from(body.answers.join) };
        if (body.threads) startTimeline(body.threads, body.fromMs ?? 0);
        else startLoop(body.events ?? [], body.runsPerSecondPerThread ?? 1);
      } else stop();
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"detail":"Not Found"}');
});

const wss = new WebSocketServer({ noServer: true });
server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
  const match = PATH.exec(req.url ?? '');
  if (!match) return void socket.destroy();
  socket.on('error', () => socket.destroy());
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.once('message', (data) => {
      const { id } = JSON.parse(String(data)) as { id: number };
      ws.send(JSON.stringify({ type: 'success', id, result: { subscription_id: `s${id}` } }));
      // events go straight onto the connection, one frame made per event for every socket (as agentplane does)
      const t = thread(match[1]!);
      t.sockets.add(socket);
      ws.on('close', () => t.sockets.delete(socket));
    });
  });
});

server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
