// `npx tsx scripts/bench/fanoutCpu.ts <tree> <tree> [rounds] [seconds] [subscribers]`: what the
// fan-out costs the server's main thread, per event delivered, on two trees in alternating rounds
// (issue 87). A tree is a git ref (built under .bench/ as the bench's `--baseline` builds it) or
// `.` (this work tree, as built by `npm run build`). Each turn starts its server fresh, opens the
// fan-out phase's subscribers (fanoutSubscribers.ts: half SSE, half WebSocket, on 20 threads),
// drives `run.start` runs on the threads for `seconds`, and reads the main thread's CPU time
// (its schedstat, ns) over that stretch. On a machine shared with other work wall-clock figures
// such as `/ok` p99 move with the neighbours; CPU time per event delivered moves much less, and
// it is what the main thread has to spend between two requests.
// `--ceiling`: after each turn of agentplane, the bare node:http broadcaster (fanoutCeiling.ts)
// plays that turn's last run on as many threads at the rate its runs went, to the same
// subscribers, and its main thread's CPU and write calls per event delivered are read the same
// way: the floor of what delivering those events costs a process (issue 87).
// `--second-env=NAME=VALUE`: the second tree's server is started with that variable set (the first's
// without it): an A/B of a setting, or of an experiment behind one, on the same tree (`. .`).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { randomUUID } from 'node:crypto';
import { lastRunEvents, newThread, protocolRun, startBroadcaster, startFanoutServer } from './fanout.ts';
import { json } from './fanoutClients.ts';
import { openSubscribers } from './fanoutSubscribers.ts';
import { BENCH_GRAPH } from './graph.ts';
import { processCpuPrecise } from './routeCpu.ts';

const withCeiling = process.argv.includes('--ceiling');
const args = process.argv.filter((a) => !a.startsWith('--'));
const trees = args.slice(2, 4);
if (trees.length < 2) throw new Error('usage: fanoutCpu.ts <tree> <tree> [rounds] [seconds] [subscribers]');
const rounds = Number(args[4] ?? 3);
const seconds = Number(args[5] ?? 15);
const subscribers = Number(args[6] ?? 1000);
const THREADS = 20;
const log = (line: string) => console.log(line);

const contenders = trees.map((tree) => {
  if (tree === '.') return { name: 'work tree', root: ROOT };
  const built = prepareBaseline(tree, log);
  return { name: `${tree} (${built.commit.slice(0, 7)})`, root: built.root };
});
// the same tree twice (its noise) is two contenders
contenders.forEach((c, i) => contenders.slice(0, i).some((o) => o.name === c.name) && (c.name += ` #${i + 1}`));

interface Turn {
  mainMsPerKEvents: number;
  /** The main thread's time beyond what the same runs cost it with no subscriber, per 1,000 events delivered. */
  fanoutMsPerKEvents: number;
  processMsPerKEvents: number;
  events: number;
  runs: number;
  lost: number;
  failed: number;
  deliveryP99Ms: number;
  /** Write system calls beyond what as many runs made alone, per event delivered. */
  writesPerEvent: number;
  /** The main thread's preemptions (nonvoluntary context switches) per 1,000 events delivered, and a run's with no subscriber. */
  preemptedPerKEvents: number;
  preemptedAlonePerRun: number;
}
const turns = new Map<string, Turn[]>(contenders.map((c) => [c.name, []]));
/** The ceiling's turns, each after a turn of the tree named. */
const ceilingTurns = new Map<string, { mainMsPerKEvents: number; writesPerEvent: number }[]>(contenders.map((c) => [c.name, []]));

/** The main thread's CPU time in s (its task's schedstat: the task id of a process's main thread is its pid). */
const mainThreadCpu = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
/** How often the main thread was taken off its core while it could run (its status's nonvoluntary_ctxt_switches): a wall-clock hold of the loop that its CPU time does not show. */
const preemptions = (pid: number) => Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'))![1]);
/** The process's write system calls so far (write, writev, …: /proc/<pid>/io's syscw). */
const writeCalls = (pid: number) => Number(/syscw: (\d+)/.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** The bare broadcaster playing `events` as a run on THREADS threads at `runsPerSecondPerThread` to the subscribers for `seconds`. */
async function ceilingTurn(events: string[], runsPerSecondPerThread: number) {
  const child = await startBroadcaster();
  try {
    const t = { url: child.url, headers: {}, assistant: '' };
    const held = await openSubscribers({ target: t, threads: Array.from({ length: THREADS }, () => randomUUID()), subscribers });
    const control = (what: string, body: unknown) => json(t, `/bench/${what}`, body).then((res) => res.arrayBuffer());
    const main0 = mainThreadCpu(child.pid);
    const writes0 = writeCalls(child.pid);
    await control('start', { events, runsPerSecondPerThread });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await control('stop', {});
    await new Promise((resolve) => setTimeout(resolve, 500));
    const main = mainThreadCpu(child.pid) - main0;
    const writes = writeCalls(child.pid) - writes0;
    const closed = await held.close();
    return {
      mainMsPerKEvents: Math.round((main * 1e8) / closed.eventsReceived) / 100,
      writesPerEvent: Math.round((writes / closed.eventsReceived) * 100) / 100,
      events: closed.eventsReceived,
      lost: closed.lost,
    };
  } finally {
    await child.stop();
  }
}

for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? contenders : [...contenders].reverse();
  for (const c of order) {
    const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'fanout-cpu-'));
    // `--second-env=NAME=VALUE`: the second contender's server started with NAME=VALUE (an A/B of a setting on one tree)
    const secondEnv = process.argv.find((a) => a.startsWith('--second-env='))?.slice('--second-env='.length);
    if (secondEnv) {
      const [name, value] = [secondEnv.slice(0, secondEnv.indexOf('=')), secondEnv.slice(secondEnv.indexOf('=') + 1)];
      if (c === contenders[1]) process.env[name] = value;
      else delete process.env[name];
    }
    const ap = await startFanoutServer(work, c.root);
    try {
      const t = { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH };
      const newThreads = () => Promise.all(Array.from({ length: THREADS }, () => newThread(t)));
      /** Runs on every thread one after another for `s` seconds: how many, and the main thread's and the process's CPU meanwhile. */
      const drive = async (threads: string[], s: number) => {
        let running = true;
        let runs = 0;
        const main0 = mainThreadCpu(ap.pid);
        const all0 = processCpuPrecise(ap.pid);
        const writes0 = writeCalls(ap.pid);
        const preempted0 = preemptions(ap.pid);
        const drivers = threads.map(async (thread) => {
          while (running) if (await protocolRun(t, thread)) runs += 1;
        });
        await new Promise((resolve) => setTimeout(resolve, s * 1000));
        running = false;
        await Promise.all(drivers);
        // the last events reach the subscribers
        await new Promise((resolve) => setTimeout(resolve, 500));
        const main = mainThreadCpu(ap.pid) - main0;
        const preempted = preemptions(ap.pid) - preempted0;
        return { runs, main, all: processCpuPrecise(ap.pid) - all0, writes: writeCalls(ap.pid) - writes0, preempted };
      };
      // warm, then what a run costs the main thread with no subscriber
      // (each phase on threads of its own, fresh: a run's cost grows with its thread's history, and
      // subscribers opened on threads that had runs would first be sent those runs' events, a
      // replay that is not the fan-out of live events)
      await drive(await newThreads(), 2);
      const alone = await drive(await newThreads(), seconds / 2);
      const threads = await newThreads();
      const held = await openSubscribers({ target: t, threads, subscribers });
      const { runs, main, all, writes, preempted } = await drive(threads, seconds);
      // what the fan-out added: the main thread's time beyond what as many runs cost alone
      const fanoutMain = main - (alone.main / alone.runs) * runs;
      const closed = await held.close();
      const k = closed.eventsReceived / 1000;
      const turn: Turn = {
        mainMsPerKEvents: Math.round((main * 1000 * 100) / k) / 100,
        fanoutMsPerKEvents: Math.round((fanoutMain * 1000 * 100) / k) / 100,
        processMsPerKEvents: Math.round((all * 1000 * 100) / k) / 100,
        events: closed.eventsReceived,
        runs,
        lost: closed.lost,
        failed: closed.failed,
        deliveryP99Ms: closed.delivery?.p99Ms ?? NaN,
        writesPerEvent: Math.round(((writes - (alone.writes / alone.runs) * runs) / closed.eventsReceived) * 100) / 100,
        preemptedPerKEvents: Math.round((preempted / k) * 10) / 10,
        preemptedAlonePerRun: Math.round((alone.preempted / alone.runs) * 100) / 100,
      };
      turns.get(c.name)!.push(turn);
      const events = withCeiling ? await lastRunEvents(t, threads[0]!) : [];
      log(
        `round ${round + 1} ${c.name}: main thread ${turn.mainMsPerKEvents} ms / 1k events delivered, of which fan-out ${turn.fanoutMsPerKEvents} (runs alone ${Math.round((alone.main / alone.runs) * 1e4) / 10} ms a run; process ${turn.processMsPerKEvents}), ${runs} runs, ${turn.events} events, ${turn.lost} lost, ${turn.failed} failed, ${turn.writesPerEvent} writes an event, main thread preempted ${turn.preemptedPerKEvents} times / 1k events (runs alone ${turn.preemptedAlonePerRun} a run), delivery p99 ${turn.deliveryP99Ms} ms; load ${load()}`,
      );
      if (events.length) {
        const ceiling = await ceilingTurn(events, runs / seconds / THREADS);
        ceilingTurns.get(c.name)!.push(ceiling);
        log(
          `  the ceiling at that rate (${events.length} events a run): main thread ${ceiling.mainMsPerKEvents} ms / 1k events delivered, ${ceiling.writesPerEvent} writes an event, ${ceiling.events} events, ${ceiling.lost} lost; load ${load()}`,
        );
      }
    } finally {
      await ap.stop();
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const c of contenders) {
  const ts = turns.get(c.name)!;
  log(
    `${c.name}: main thread ${median(ts.map((x) => x.mainMsPerKEvents))} ms / 1k events (median of ${ts.map((x) => x.mainMsPerKEvents).join(', ')}), fan-out ${median(ts.map((x) => x.fanoutMsPerKEvents))} (${ts.map((x) => x.fanoutMsPerKEvents).join(', ')}), process ${median(ts.map((x) => x.processMsPerKEvents))}, writes an event ${median(ts.map((x) => x.writesPerEvent))}`,
  );
  const cs = ceilingTurns.get(c.name)!;
  if (cs.length)
    log(
      `  the ceiling after it: main thread ${median(cs.map((x) => x.mainMsPerKEvents))} ms / 1k events (${cs.map((x) => x.mainMsPerKEvents).join(', ')}), writes an event ${median(cs.map((x) => x.writesPerEvent))}`,
    );
}
