// `node --import ./startAt200Recorder.mjs`: at the first 200 the server writes, records into the
// file named by AT200_FILE the main thread's CPU (its schedstat) and minor page faults, every
// thread's faults and CPU (/proc/self/task: the V8 platform's helper threads beside it), the
// process's, RSS and the GCs so far, then one newline (a reader waits for it). startAt200.ts reads it.
import dc from 'node:diagnostics_channel';
import fs from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

const out = process.env.AT200_FILE;
let gcs = 0;
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcs += 1;
    gcMs += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });
let done = false;
dc.subscribe('http.server.response.finish', ({ response }) => {
  if (done || response.statusCode !== 200) return;
  done = true;
  const usage = process.resourceUsage();
  const schedstat = fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ');
  const threads = fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // minflt, and utime + stime in clock ticks (10 ms)
    return { tid: Number(tid) - process.pid, faults: Number(fields[7]), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
  });
  const record = {
    // the profile's clock (CLOCK_MONOTONIC, µs): a --cpu-prof is cut here
    atUs: Number(process.hrtime.bigint() / 1000n),
    mainCpuMs: Number(schedstat[0]) / 1e6,
    mainFaults: threads.find((t) => t.tid === 0).faults,
    threads: threads.filter((t) => t.faults > 300),
    processCpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    faults: usage.minorPageFault,
    rssMB: process.memoryUsage.rss() / 2 ** 20,
    gcs,
    gcMs,
  };
  fs.writeFileSync(out, JSON.stringify(record) + '\n');
});
