// What the load generator (autocannon) spends a request on each tree's answers alone, with the
// servers taken out: `npx tsx scripts/bench/clientCost.ts [ref] [rounds] [requests]`. Both trees
// (the current one and the baseline's, d5486dc) are started once and each shared route is asked
// once over a raw socket the way autocannon asks (HTTP/1.1, keep-alive, its headers); the exact
// bytes of each answer (head and body, header order and casing as sent) are kept and compared.
// Then a bare `net` server in a child process answers every request with those bytes, one
// server per tree, and autocannon drives each in turns (`requests` a burst, 10 connections,
// the order flipping each round): the client's CPU µs a request (this process's cpuUsage) and
// the bare server's, with nothing of either tree's code running. If the client spends more on
// one tree's bytes here, the bytes cost it; if not, its extra CPU in routeCpu.ts follows the
// servers' pace (fewer answers read a wake at a lower rate), not the answers.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { load } from './load.ts';
import { median } from './protocolFigures.ts';
import { seed, processCpuPrecise } from './routeCpu.ts';
import { ROUTE_CPU_ROUTES, type RouteName } from './routeCpuFigure.ts';
import { untilIdle } from './writes.ts';

type Route = { url: string; method?: string; body?: string };

/** One request as autocannon writes it (its default headers: host, user-agent absent; keep-alive by HTTP/1.1). */
function rawRequest(ap: Agentplane, route: Route): string {
  const host = new URL(ap.url).host;
  const headers: Record<string, string> = { host, ...ap.headers };
  if (route.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(route.body));
  }
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `${route.method ?? 'GET'} ${route.url} HTTP/1.1\r\n${head}\r\n${route.body ?? ''}`;
}

/** The whole answer to one request on a fresh keep-alive socket, as bytes. */
async function capture(ap: Agentplane, route: Route): Promise<Buffer> {
  const { hostname, port } = new URL(ap.url);
  return await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(rawRequest(ap, route)));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = all.subarray(0, end).toString('latin1');
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!length) return reject(new Error(`no content-length in\n${head}`));
      if (all.length >= end + 4 + Number(length[1])) {
        socket.destroy();
        resolve(all.subarray(0, end + 4 + Number(length[1])));
      }
    });
    socket.on('error', reject);
  });
}

/** A bare server in a child process: every request (a head and its Content-Length body) is answered with `answer`'s bytes. */
const BARE = `
const net = require('node:net');
const answer = Buffer.from(process.argv[1], 'base64');
const server = net.createServer((s) => {
  let pending = Buffer.alloc(0);
  s.on('data', (c) => {
    pending = pending.length ? Buffer.concat([pending, c]) : c;
    let n = 0;
    for (;;) {
      const end = pending.indexOf('\\r\\n\\r\\n');
      if (end < 0) break;
      const m = /\\r\\ncontent-length: *(\\d+)/i.exec(pending.subarray(0, end).toString('latin1'));
      const total = end + 4 + (m ? Number(m[1]) : 0);
      if (pending.length < total) break;
      pending = pending.subarray(total);
      n += 1;
    }
    if (n === 1) s.write(answer);
    else if (n > 1) s.write(Buffer.concat(Array(n).fill(answer)));
  });
  s.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

async function startBare(answer: Buffer): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', BARE, answer.toString('base64')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (p) => resolve(Number(p)));
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { child, port };
}

/** Where two answers differ, by line of the head (the Date's value and the request id's value are expected to). */
function headDiff(a: Buffer, b: Buffer): string {
  const lines = (x: Buffer) => x.toString('latin1').split('\r\n');
  const la = lines(a);
  const lb = lines(b);
  const out: string[] = [];
  for (let i = 0; i < Math.max(la.length, lb.length); i += 1)
    if (la[i] !== lb[i]) out.push(`    ${i}: ${JSON.stringify(la[i] ?? null)} | ${JSON.stringify(lb[i] ?? null)}`);
  return out.join('\n');
}

const r2 = (n: number) => Math.round(n * 100) / 100;

if (import.meta.url === `file://${process.argv[1]}`) {
  const [ref = baselineRefFrom([], process.env) ?? 'd5486dc', rounds = '6', requests = '40000'] = process.argv.slice(2);
  const log = (s: string) => console.log(s);
  const baselineRoot = process.env.BENCH_BASELINE_ROOT ?? (ref === '.' ? ROOT : prepareBaseline(ref, log).root);
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'client-cost-'));
  const answers = new Map<RouteName, Record<'current' | 'baseline', Buffer>>();
  const bare: ChildProcess[] = [];
  try {
    const servers: Record<'current' | 'baseline', Agentplane> = {} as never;
    try {
      for (const tree of ['current', 'baseline'] as const) {
        servers[tree] = await startAgentplane({
          dataDir: path.join(work, tree, 'data'),
          workDir: path.join(work, tree),
          root: tree === 'baseline' ? baselineRoot : undefined,
        });
      }
      const routes = { current: await seed(servers.current), baseline: await seed(servers.baseline) };
      for (const tree of ['current', 'baseline'] as const) await untilIdle(servers[tree]);
      for (const name of ROUTE_CPU_ROUTES) {
        const got = { current: await capture(servers.current, routes.current[name]), baseline: await capture(servers.baseline, routes.baseline[name]) };
        answers.set(name, got);
        fs.writeFileSync(path.join(ROOT, '.bench', `answer-${name.replace(/\W+/g, '_')}-current.bin`), got.current);
        fs.writeFileSync(path.join(ROOT, '.bench', `answer-${name.replace(/\W+/g, '_')}-baseline.bin`), got.baseline);
        log(
          `${name}: current ${got.current.length} bytes, baseline ${got.baseline.length}; head lines that differ (current | baseline):\n${headDiff(got.current, got.baseline)}`,
        );
      }
    } finally {
      await Promise.all(Object.values(servers).map((s) => s?.stop()));
    }
    for (const name of ROUTE_CPU_ROUTES) {
      const got = answers.get(name)!;
      const route = { url: '/x', method: name.startsWith('POST') ? 'POST' : 'GET', body: name.startsWith('POST') ? '{}' : undefined };
      const pair = { current: await startBare(got.current), baseline: await startBare(got.baseline) };
      bare.push(pair.current.child, pair.baseline.child);
      const sample = { current: [] as { client: number; server: number; rps: number }[], baseline: [] as { client: number; server: number; rps: number }[] };
      for (let round = -1; round < Number(rounds); round += 1) {
        for (const tree of round % 2 ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const)) {
          const { port, child } = pair[tree];
          const cpu = process.cpuUsage();
          const serverBefore = processCpuPrecise(child.pid!);
          const result = await load({
            url: `http://127.0.0.1:${port}${route.url}`,
            method: route.method,
            body: route.body,
            headers: { authorization: 'Bearer x', 'x-tenant': 'y', ...(route.body ? { 'content-type': 'application/json' } : {}) },
            connections: 10,
            amount: Number(requests),
          });
          const used = process.cpuUsage(cpu);
          const server = processCpuPrecise(child.pid!) - serverBefore;
          if (round < 0) continue; // warm-up
          const seconds = result.lastResponseSeconds ?? result.seconds;
          sample[tree].push({ client: (used.user + used.system) / result.requests, server: (server / result.requests) * 1e6, rps: result.requests / seconds });
        }
      }
      const m = (tree: 'current' | 'baseline', k: 'client' | 'server' | 'rps') => r2(median(sample[tree].map((s) => s[k])));
      const ratios = sample.current.map((c, i) => c.client / sample.baseline[i].client);
      log(
        `${name.padEnd(26)} client µs a request: current's bytes ${m('current', 'client')}, baseline's ${m('baseline', 'client')} (ratio ${r2(median(ratios))}, rounds ${r2(Math.min(...ratios))}–${r2(Math.max(...ratios))}); bare server ${m('current', 'server')} / ${m('baseline', 'server')} µs; ${m('current', 'rps')} / ${m('baseline', 'rps')} req/s`,
      );
      for (const c of [pair.current.child, pair.baseline.child]) c.kill();
    }
  } finally {
    for (const c of bare) if (c.exitCode === null) c.kill();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
