// `node scripts/bench/threadTimeline.mjs <server pid> <client pid> <every ms> <out.json>` (issue 86):
// samples every thread of the server and the client's process from /proc each `every` ms until it
// is sent SIGTERM, then writes the samples: per sample the time (ms), each thread's time on a core
// and time ready but waiting for one (ms, schedstat), and the machine's idle time (ms, /proc/stat).
// A process of its own, so that the client's event loop (the bench's) is not what samples.
import fs from 'node:fs';

const [serverPid, clientPid, everyMs, out] = process.argv.slice(2);
const samples = [];

function threads(pid) {
  const out = {};
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const [onCpu, waiting] = fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ');
      out[task] = [Number(onCpu) / 1e6, Number(waiting) / 1e6];
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

function idleMs() {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  return (Number(cpu[4]) + Number(cpu[5])) * 10;
}

const sample = () => samples.push({ t: performance.now(), server: threads(serverPid), client: threads(clientPid), idleMs: idleMs() });
const timer = setInterval(sample, Number(everyMs));
sample();
process.on('SIGTERM', () => {
  clearInterval(timer);
  sample();
  fs.writeFileSync(out, JSON.stringify(samples));
  process.exit(0);
});
