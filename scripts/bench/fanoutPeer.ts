// `npx tsx scripts/bench/fanoutPeer.ts [rounds] [subscribers]`: the fan-out phase (fanout.ts) on
// the upstream dev server (`langgraphjs dev`, @langchain/langgraph-cli 1.5.1, peer.ts) and on
// this tree's agentplane (built), alternately, each started fresh for its turn, both serving the
// same LangGraph echo graph (issue 87: "ahead of upstream on the same probe"). The same client,
// the same figures: `/ok` p99 idle, with the runs alone and with the subscribers, delivery,
// subscribers opened, events received and lost. The upstream server's own limits (a subscriber
// it does not open, a route it does not serve) are counted as the phase counts them, not hidden.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { waitForSettledStart } from './settledStart.ts';
import { measureFanout, startFanoutServer, type FanoutFigure } from './fanout.ts';
import { fanoutTable } from './fanoutTable.ts';
import { BENCH_GRAPH } from './graph.ts';
import { ensurePeer, startPeer } from './peer.ts';

const rounds = Number(process.argv[2] ?? 1);
const subscribers = Number(process.argv[3] ?? 1000);
const log = (line: string) => console.log(line);
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const version = await ensurePeer(log);
const figures = new Map<string, (FanoutFigure & { load: string })[]>([
  ['agentplane', []],
  [`upstream ${version}`, []],
]);

for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? [...figures.keys()] : [...figures.keys()].reverse();
  for (const name of order) {
    log(`round ${round + 1}: ${name}`);
    const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'fanout-peer-'));
    const server = name === 'agentplane' ? await startFanoutServer(work) : await startPeer({ fresh: true });
    const headers = 'headers' in server ? (server.headers as Record<string, string>) : {};
    try {
      const f = await measureFanout(
        { url: server.url, headers, assistant: BENCH_GRAPH, settled: () => waitForSettledStart(() => server.rss()) },
        { subscribers, threads: 20, shortHistory: 3, longHistory: 30, ceiling: false },
        (line) => log(`  ${line}`),
      );
      figures.get(name)!.push({ ...f, load: load() });
    } catch (err) {
      log(`  ${name} failed the phase: ${(err as Error).message}`);
    } finally {
      await server.stop();
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

log('');
for (const line of fanoutTable(figures)) log(line);
log(`| load average | ${[...figures.values()].map((fs) => fs.map((f) => f.load).join('; ')).join(' | ')} |`);
