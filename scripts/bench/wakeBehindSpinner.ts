// `npx tsx scripts/bench/wakeBehindSpinner.ts [rounds] [seconds]`: how long a woken thread at the
// server's priority waits for its core when a CPU-bound thread holds it, by the holder's policy
// (issue 87: the run workers run at niceness 10, schedulingPriority.ts). A timer-driven waker (a
// `setTimeout` of 2 ms, again and again: its lateness is its wait for the core, and the timer's
// own slack) and, on the same core (`taskset -c 1`), a spinner: none, at niceness 10, at
// niceness 19, or under SCHED_IDLE (`chrt --idle`). The variants alternate in rounds so they
// share the machine's moments; other processes on that core weigh on every variant alike.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

const [rounds = 3, seconds = 4] = process.argv.slice(2).map(Number);
const CORE = '1';
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const SPIN = 'for (;;) {}';
const WAKER = `
  const late = [];
  const until = performance.now() + ${seconds * 1000};
  const tick = (due) => {
    late.push(performance.now() - due);
    if (performance.now() > until) {
      late.sort((a, b) => a - b);
      const q = (x) => Math.round(late[Math.min(late.length - 1, Math.floor(late.length * x))] * 100) / 100;
      console.log(JSON.stringify({ n: late.length, p50: q(0.5), p99: q(0.99), p999: q(0.999), max: q(1) }));
      return;
    }
    const next = performance.now() + 2;
    setTimeout(() => tick(next), 2);
  };
  setTimeout(() => tick(performance.now() + 2), 2);`;

const variants: Record<string, string[] | null> = {
  none: null,
  nice10: ['nice', '-n', '10'],
  nice19: ['nice', '-n', '19'],
  idle: ['chrt', '--idle', '0'],
};

function run(command: string[]): ChildProcess {
  return spawn('taskset', ['-c', CORE, ...command], { stdio: ['ignore', 'pipe', 'inherit'] });
}

const results = new Map<string, number[]>(Object.keys(variants).map((k) => [k, []]));
for (let round = 1; round <= rounds; round += 1) {
  const order = Object.keys(variants);
  if (round % 2 === 0) order.reverse();
  for (const name of order) {
    const prefix = variants[name];
    const spinner = prefix ? run([...prefix, process.execPath, '-e', SPIN]) : null;
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const waker = run([process.execPath, '-e', WAKER]);
      let out = '';
      waker.stdout!.on('data', (d: Buffer) => (out += d));
      await new Promise((resolve) => waker.once('exit', resolve));
      const figure = JSON.parse(out) as { n: number; p50: number; p99: number; p999: number; max: number };
      results.get(name)!.push(figure.p99);
      console.log(
        `round ${round} ${name}: a 2-ms timer's lateness p50 ${figure.p50} p99 ${figure.p99} p99.9 ${figure.p999} max ${figure.max} ms (${figure.n} wakes); load ${load()}`,
      );
    } finally {
      spinner?.kill('SIGKILL');
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, p99s] of results) console.log(`${name}: lateness p99 median ${median(p99s)} ms (${p99s.join(', ')})`);
