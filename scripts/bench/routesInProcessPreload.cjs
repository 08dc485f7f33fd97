// Preloaded (`node --require`) into an agentplane server by routesInProcess.ts: the server starts
// as its own entry point makes it (any tree, any version), and the request listener it gives its
// HTTP server is taken when the server listens. Requests under CONTROL, on the socket, are the
// bench's: each drives that listener in process with light-my-request (no socket, the same on
// every tree) and answers with what the process spent on it. CommonJS and plain JavaScript, so
// it loads the same way before a tree's own loader (tsx or none) exists.
'use strict';
const http = require('node:http');
const v8 = require('node:v8');

const CONTROL = '/__in-process/';
/** light-my-request, from the tree that runs the bench: an older tree may not have it. */
const inject = require(process.env.ROUTES_IN_PROCESS_INJECT);

let app = null;
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  const listeners = this.listeners('request');
  if (app === null && listeners.length > 0) {
    app = (req, res) => {
      for (const listener of listeners) listener.call(this, req, res);
    };
    this.removeAllListeners('request');
    this.on('request', (req, res) => (req.url.startsWith(CONTROL) ? control(req, res) : app(req, res)));
  }
  return listen.apply(this, args);
};

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** `count` requests of `route`, `concurrency` at a time; throws on an answer that is not 2xx. */
async function drive(route, count, concurrency) {
  let next = 0;
  const one = async () => {
    while (next < count) {
      next += 1;
      const reply = await inject(app, route);
      if (reply.statusCode >= 300) throw new Error(`${route.method} ${route.url}: ${reply.statusCode} ${reply.payload.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, one));
}

/** A full collection, twice (a second finds what the first's finalisers let go), then the heap in use. */
function heapAfterFullGc() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

const oldSpaceUsed = (at) => at.heapSpaceStatistics.find((space) => space.spaceName === 'old_space').spaceUsedSize;

/** V8's GC profiler statistics as the collections' count and time by kind, and the bytes scavenges promoted. */
function collections(statistics) {
  const gc = { scavenges: 0, scavengeUs: 0, promoted: 0, fullGcs: 0, fullUs: 0, other: 0, otherUs: 0 };
  for (const s of statistics) {
    if (s.gcType === 'Scavenge') {
      gc.scavenges += 1;
      gc.scavengeUs += s.cost;
      // what a scavenge moves out of the young generation: the old space's growth over it
      gc.promoted += oldSpaceUsed(s.afterGC) - oldSpaceUsed(s.beforeGC);
    } else if (s.gcType === 'MarkSweepCompact') {
      gc.fullGcs += 1;
      gc.fullUs += s.cost;
    } else {
      gc.other += 1;
      gc.otherUs += s.cost;
    }
  }
  return gc;
}

/**
 * One round: CPU (every thread of the process, getrusage), wall time, and from V8's GC
 * profiler the collections' count and time by kind and the bytes allocated (the heap in use
 * before each collection less after the one before it, and at the end less after the last).
 */
async function round({ route, count, concurrency }) {
  await tick();
  const profiler = new v8.GCProfiler();
  const heapStart = process.memoryUsage().heapUsed;
  profiler.start();
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await drive(route, count, concurrency);
  const wallNs = Number(process.hrtime.bigint() - started);
  const used = process.cpuUsage(cpu);
  const heapEnd = process.memoryUsage().heapUsed;
  const { statistics } = profiler.stop();
  let allocated = 0;
  let last = heapStart;
  for (const s of statistics) {
    allocated += s.beforeGC.heapStatistics.usedHeapSize - last;
    last = s.afterGC.heapStatistics.usedHeapSize;
  }
  const gc = collections(statistics);
  allocated += heapEnd - last;
  return { count, cpuUs: used.user + used.system, wallUs: wallNs / 1000, allocated, heapEnd, gc };
}

/** Bytes still held after `count` requests of `route`, after full collections before and after (needs --expose-gc). */
async function retained({ route, count, concurrency }) {
  await tick();
  const before = heapAfterFullGc();
  await drive(route, count, concurrency);
  await tick();
  const after = heapAfterFullGc();
  return { count, before, after, perRequest: (after - before) / count };
}

/** A heap snapshot to `file` (after full collections), for a diff of what survives. */
async function snapshot({ file }) {
  await tick();
  heapAfterFullGc();
  return { file: v8.writeHeapSnapshot(file) };
}

/** The inspector's method `method` on `session`, as a promise. */
const post = (session, method, params = {}) =>
  new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));

/**
 * A profile of `count` requests of `route` to `file`: `cpu` (the inspector's CPU profile) or
 * `allocations` (V8's sampling heap profiler, keeping the samples of objects collected since:
 * what the requests allocate, not only what survives them). profileSummary.ts reads either.
 */
async function profile({ route, count, concurrency, kind, file }) {
  const { Session } = require('node:inspector');
  const session = new Session();
  session.connect();
  try {
    await tick();
    if (kind === 'cpu') {
      await post(session, 'Profiler.enable');
      await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
      await post(session, 'Profiler.start');
    } else {
      await post(session, 'HeapProfiler.enable');
      await post(session, 'HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
    await drive(route, count, concurrency);
    const { profile } = await post(session, kind === 'cpu' ? 'Profiler.stop' : 'HeapProfiler.stopSampling');
    require('node:fs').writeFileSync(file, JSON.stringify(profile));
    return { file };
  } finally {
    session.disconnect();
  }
}

/**
 * Code of the bench's own, the same in every tree, timed in this process: when a tree's
 * requests are slower everywhere, its own code included, the process is (async hooks on every
 * promise, a heap that makes each allocation or collection dearer), not any one of its routes.
 */
async function calibrate({ count = 200000 }) {
  await tick();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i += 1) await Promise.resolve(i);
  const promises = process.cpuUsage(cpu);
  const cpu2 = process.cpuUsage();
  let kept = null;
  for (let i = 0; i < count; i += 1) kept = { i, next: kept, text: `item ${i}` };
  const objects = process.cpuUsage(cpu2);
  return { promiseNs: ((promises.user + promises.system) * 1000) / count, objectNs: ((objects.user + objects.system) * 1000) / count, made: kept !== null };
}

/** The inspector session of a CPU profile taken over the socket (routeProfile.ts): started, then stopped after the load. */
let socketProfile = null;

async function profileStart({ interval = 100 }) {
  const { Session } = require('node:inspector');
  socketProfile = new Session();
  socketProfile.connect();
  await post(socketProfile, 'Profiler.enable');
  await post(socketProfile, 'Profiler.setSamplingInterval', { interval });
  await post(socketProfile, 'Profiler.start');
  return {};
}

async function profileStop({ file }) {
  const { profile } = await post(socketProfile, 'Profiler.stop');
  socketProfile.disconnect();
  socketProfile = null;
  require('node:fs').writeFileSync(file, JSON.stringify(profile));
  return { file };
}

/** V8's GC profiler over requests sent over the socket (gcStart, the load, gcStop): the collections' count and time by kind. */
let socketGc = null;

function gcStart() {
  socketGc = { profiler: new v8.GCProfiler(), cpu: process.cpuUsage() };
  socketGc.profiler.start();
  return {};
}

function gcStop() {
  const { statistics } = socketGc.profiler.stop();
  const used = process.cpuUsage(socketGc.cpu);
  socketGc = null;
  return { cpuUs: used.user + used.system, ...collections(statistics) };
}

const actions = { round, retained, snapshot, profile, calibrate, profileStart, profileStop, gcStart, gcStop };

function control(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const action = actions[req.url.slice(CONTROL.length)];
    try {
      if (!action) throw new Error(`no action ${req.url}`);
      if (app === null) throw new Error('no request listener taken');
      const out = await action(JSON.parse(Buffer.concat(chunks).toString() || '{}'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err && err.stack));
    }
  });
}
