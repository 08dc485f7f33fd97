// The fan-out phase's ceiling (issue 87): a bare node:http broadcaster that serves the thread
// event streams the way the machine allows at best — `POST /threads/{id}/stream/events` as
// Server-Sent Events and `GET` on the same path upgraded to a WebSocket (`subscription.subscribe`
// answered, then raw text frames) — and `GET /ok`. Told to start, it plays on every thread, at
// the rate agentplane's runs went in the same run, the events of one of agentplane's runs as
// agentplane sent them: each run's events numbered for the thread and stamped with the time
// they are sent, each clump of them (those agentplane made in the same ms) at its time in the
// run as agentplane made it (a run's events are made over its life, not at once: written all
// at once the ceiling made a third of agentplane's writes), encoded once, and written to each
// subscriber of the thread in one write. No store, no runs, no log, no filter: what is left is
// the sockets.
// usage: node --import tsx scripts/bench/fanoutCeiling.ts <port>
//   POST /bench/start {events: [event JSON, …], runsPerSecondPerThread}; POST /bench/stop
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { webSocketTextFrame } from '../../src/runtime/transports/websocket/webSocketFrame.ts';

const PATH = /^\/threads\/([^/?]+)\/stream\/events$/;
const OK = Buffer.from('{"ok":true}');

interface Thread {
  sse: Set<ServerResponse>;
  sockets: Set<Duplex>;
  seq: number;
}

const threads = new Map<string, Thread>();
const thread = (id: string) => {
  let t = threads.get(id);
  if (!t) threads.set(id, (t = { sse: new Set(), sockets: new Set(), seq: 0 }));
  return t;
};

/** One recorded event: its method and its JSON cut around its `params.timestamp` (filled in when sent). */
interface Template {
  method: string;
  before: string;
  after: string;
  /** When agentplane made it, in ms since the run's first event. */
  offsetMs: number;
}

function template(json: string, first: number): Template {
  const event = JSON.parse(json) as { method: string; params?: { timestamp?: number } };
  // the event's own fields after its numbers: `{"method":…,"params":{…,"timestamp":N,…}}`
  const rest = json.slice(json.indexOf('"method"'));
  const params = rest.indexOf('"params":');
  const at = rest.indexOf('"timestamp":', params) + '"timestamp":'.length;
  let end = at;
  while (end < rest.length && rest.charCodeAt(end) >= 48 && rest.charCodeAt(end) <= 57) end += 1;
  return { method: event.method, before: rest.slice(0, at), after: rest.slice(end), offsetMs: Math.max(0, (event.params?.timestamp ?? first) - first) };
}

/** A recorded run's events as templates, their times made relative to its first's. */
function templates(jsons: string[]): Template[] {
  const first = (JSON.parse(jsons[0] ?? '{}') as { params?: { timestamp?: number } }).params?.timestamp ?? 0;
  return jsons.map((json) => template(json, first));
}

/** One clump of a run's events on a thread: framed once, every subscriber sent them in one write. */
function playClump(t: Thread, events: Template[]): void {
  const now = Date.now();
  const sse: Buffer[] = [];
  const ws: Buffer[] = [];
  for (const e of events) {
    t.seq += 1;
    const json = `{"type":"event","event_id":"${t.seq}","seq":${t.seq},${e.before}${now}${e.after}`;
    sse.push(Buffer.from(`event: ${e.method}\nid: ${t.seq}\ndata: ${json}\n\n`));
    ws.push(webSocketTextFrame(Buffer.from(json)));
  }
  const sseBytes = Buffer.concat(sse);
  const wsBytes = Buffer.concat(ws);
  for (const res of t.sse) res.write(sseBytes);
  for (const socket of t.sockets) socket.write(wsBytes);
}

/** One run's events on a thread, each clump at its time in the run. */
function playRun(t: Thread, events: Template[]): void {
  const clumps = new Map<number, Template[]>();
  for (const e of events) clumps.set(e.offsetMs, [...(clumps.get(e.offsetMs) ?? []), e]);
  for (const [offsetMs, clump] of clumps) {
    if (offsetMs === 0) playClump(t, clump);
    else {
      const timer = setTimeout(() => {
        later.delete(timer);
        playClump(t, clump);
      }, offsetMs);
      later.add(timer);
    }
  }
}

/** The clumps of runs under way, stopped with the runs. */
const later = new Set<NodeJS.Timeout>();

let playing: NodeJS.Timeout[] = [];

function start(events: Template[], runsPerSecondPerThread: number): void {
  const every = 1000 / runsPerSecondPerThread;
  const all = [...threads.values()];
  // the threads' runs spread over the period, as agentplane's threads run out of step
  all.forEach((t, i) => {
    const first = setTimeout(
      () => {
        playRun(t, events);
        playing.push(setInterval(() => playRun(t, events), every));
      },
      (every * i) / all.length,
    );
    playing.push(first);
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
        const { events, runsPerSecondPerThread } = JSON.parse(text) as { events: string[]; runsPerSecondPerThread: number };
        start(templates(events), runsPerSecondPerThread);
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
