// Counts, per request, what Node and the server do around a request's streams: listeners added
// to the request, its response and its socket, events they emit, `resume()`/`_dump()` of the
// request, ticks queued (by function) and timers armed. Load-independent: the same counts on a
// busy machine as on a quiet one. Preloaded into a server (`node --require` this file), counting
// is switched on and off by SIGUSR1; each off prints `COUNTS <json>` on stderr, and the first
// time a listener or an `endReadableNT` tick is seen, `STACK <what>` with where it came from.
// scripts/bench/requestEvents.mjs drives it.
const http = require('node:http');
const { Readable } = require('node:stream');
const EventEmitter = require('node:events');

const counts = new Map();
const seen = new Set();
let counting = false;
const count = (key, withStack) => {
  if (!counting) return;
  counts.set(key, (counts.get(key) ?? 0) + 1);
  if (withStack && !seen.has(key)) {
    seen.add(key);
    process.stderr.write(`STACK ${key}\n${new Error().stack.split('\n').slice(2, 9).join('\n')}\n`);
  }
};
const kind = (o) =>
  o instanceof http.IncomingMessage ? 'req' : o instanceof http.ServerResponse ? 'res' : o?.constructor?.name === 'Socket' ? 'Socket' : undefined;

for (const method of ['on', 'once', 'addListener', 'prependListener']) {
  const original = EventEmitter.prototype[method];
  EventEmitter.prototype[method] = function (event, listener) {
    const k = kind(this);
    if (k) count(`${method} ${k} ${String(event)}`, true);
    return original.call(this, event, listener);
  };
}
const emit = EventEmitter.prototype.emit;
EventEmitter.prototype.emit = function (event, ...args) {
  const k = kind(this);
  if (k === 'req' || k === 'res') count(`emit ${k} ${String(event)}`);
  return emit.call(this, event, ...args);
};
const resume = Readable.prototype.resume;
Readable.prototype.resume = function () {
  if (this instanceof http.IncomingMessage) count(`req.resume ${this._dumped ? 'by _dump' : 'by the app'}`, true);
  return resume.call(this);
};
const dump = http.IncomingMessage.prototype._dump;
http.IncomingMessage.prototype._dump = function () {
  count('req._dump');
  return dump.call(this);
};
for (const name of ['setTimeout', 'setImmediate', 'setInterval']) {
  const original = globalThis[name];
  globalThis[name] = function (...args) {
    count(name, true);
    return original.apply(this, args);
  };
}
const nextTick = process.nextTick;
process.nextTick = function (fn, ...args) {
  count(`nextTick ${fn?.name} ${args[0]?.constructor?.name}`, fn?.name === 'endReadableNT');
  return nextTick.call(process, fn, ...args);
};
process.on('SIGUSR1', () => {
  counting = !counting;
  if (counting) return;
  process.stderr.write(`COUNTS ${JSON.stringify([...counts].sort())}\n`);
  counts.clear();
});
