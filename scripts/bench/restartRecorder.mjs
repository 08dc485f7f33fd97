// Loaded into a server under measurement with `node --import` (restartBlocks.ts): on the main
// thread, every stretch of 8 ms or more between two turns of a 1-ms timer (when it began, how
// long, and how much of it the thread spent on a CPU: its schedstat's first field), and each
// HTTP request's arrival and answer, with the thread's CPU time at both; written as JSON to
// $BENCH_RESTART_OUT when the process exits. The driver reads from it what the first requests
// after a restart waited behind, by CPU and order rather than the machine's wall clock alone.
import fs from 'node:fs';
import http from 'node:http';
import { isMainThread } from 'node:worker_threads';

const out = process.env.BENCH_RESTART_OUT;
if (isMainThread && out) {
  const schedstat = `/proc/${process.pid}/task/${process.pid}/schedstat`;
  const cpu = () => Number(fs.readFileSync(schedstat, 'latin1').split(' ', 1)[0]) / 1e6;
  const now = () => performance.now();
  const blocks = [];
  const requests = [];
  let last = now();
  let lastCpu = cpu();
  setInterval(() => {
    const at = now();
    const used = cpu();
    if (at - last >= 8) blocks.push({ at: last, ms: at - last, cpuMs: used - lastCpu });
    last = at;
    lastCpu = used;
  }, 1).unref();
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (name, req, res) {
    if (name === 'request') {
      const seen = { what: `${req.method} ${req.url}`, at: now(), cpuAt: cpu() };
      res.on('finish', () => requests.push({ ...seen, done: now(), cpuDone: cpu(), status: res.statusCode }));
    }
    return emit.apply(this, arguments);
  };
  process.on('exit', () => fs.writeFileSync(out, JSON.stringify({ timeOrigin: performance.timeOrigin, cpuMs: cpu(), blocks, requests })));
}
