// 1. HTTP overhead: the two read routes on agentplane, on a bare node:http server returning
// the very bytes agentplane returned (the ceiling), and on Prism mocking the same spec.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, expectStatus, request, type Agentplane } from './agentplane.ts';
import { ROUTE_BY_ID, ROUTE_LIST, type HttpFigure, type Server } from './figures.ts';
import { load } from './load.ts';
import { freePort, startChild, type Child } from './proc.ts';

export const HTTP_SECONDS = 5;
export const HTTP_CONNECTIONS = 10;
const WARMUP_SECONDS = 1;
/** Rounds on the routes measured against the ceiling (each server's best kept). */
export const CEILING_ROUNDS = 3;

export function deploymentBody(name: string) {
  return {
    name,
    source: 'github',
    source_config: { repo_url: `https://github.com/acme/${name}`, deployment_type: 'dev', build_on_push: false },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-bench' }],
  };
}

export interface HttpPhase {
  figures: HttpFigure[];
  skipped: { what: string; reason: string }[];
  prismStartMs: number | null;
}

/** A route measured on every agentplane tree; `ceiling` ones also on the bare server and Prism. */
interface Route {
  route: string;
  url: string;
  method?: 'POST';
  body?: string;
  ceiling: boolean;
}

/** 20 deployments and a thread in the server, and the routes read or written on them. */
async function seed(ap: Agentplane): Promise<Route[]> {
  let first: string | undefined;
  for (let i = 0; i < 20; i += 1) {
    const res = await ap.api('/v2/deployments', { json: deploymentBody(`bench-http-${i}`) });
    expectStatus('POST /v2/deployments', res, 201);
    first ??= res.body.id;
  }
  const thread = await ap.api('/threads', { json: { metadata: { bench: 'http' } } });
  expectStatus('POST /threads', thread, 200, 201);
  return [
    { route: ROUTE_BY_ID, url: `/v2/deployments/${first}`, ceiling: true },
    { route: ROUTE_LIST, url: '/v2/deployments?limit=20', ceiling: true },
    { route: 'GET /ok', url: '/ok', ceiling: false },
    { route: 'GET /threads/{id}', url: `/threads/${thread.body.thread_id}`, ceiling: false },
    { route: 'POST /threads', url: '/threads', method: 'POST', body: '{}', ceiling: false },
  ];
}

/**
 * Every route on the current tree and, given one, on the baseline — one route at a time, both
 * trees back to back with the order flipped per route — then the deployment reads on the
 * ceiling and on Prism.
 */
export async function measureHttp(ap: Agentplane, workDir: string, log: (s: string) => void, baseline?: Agentplane): Promise<HttpPhase> {
  const figures: HttpFigure[] = [];
  const skipped: HttpPhase['skipped'] = [];
  const trees: [Server, Agentplane, Route[]][] = [['agentplane', ap, await seed(ap)]];
  if (baseline) trees.push(['baseline', baseline, await seed(baseline)]);
  const routes = trees[0][2].filter((r) => r.ceiling);
  const recorded: Record<string, { status: number; contentType: string; body: string }> = {};
  for (const { url } of routes) {
    const res = await request(ap.url + url, { headers: ap.headers });
    expectStatus(`GET ${url}`, res, 200);
    recorded[url] = { status: res.status, contentType: res.contentType, body: res.text };
  }

  // each tree has its own API key; the ceiling and Prism get the current tree's (and ignore it)
  const measureOnce = async (
    server: Server,
    child: Pick<Child, 'url' | 'cpu'> & { headers?: Record<string, string> },
    { route, url, method, body }: Route,
    warm: boolean,
  ): Promise<HttpFigure> => {
    const headers = child.headers ?? ap.headers;
    const options = {
      url: child.url + url,
      method,
      body,
      headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
      connections: HTTP_CONNECTIONS,
    };
    if (warm) await load({ ...options, duration: WARMUP_SECONDS });
    const cpuBefore = child.cpu();
    const result = await load({ ...options, duration: HTTP_SECONDS });
    const total = result.requests + result.non2xx;
    const cpuUsPerRequest = total ? Math.round(((child.cpu() - cpuBefore) / total) * 1e6 * 10) / 10 : null;
    log(
      `  ${server.padEnd(10)} ${route.padEnd(30)} ${result.rps} req/s p50 ${result.p50Ms} ms p99 ${result.p99Ms} ms, ${cpuUsPerRequest} µs CPU/req, non-2xx ${result.non2xx}`,
    );
    return { route, server, ...result, cpuUsPerRequest };
  };
  const measureRoute = async (server: Server, child: Pick<Child, 'url' | 'cpu'>, route: Route) => {
    figures.push(await measureOnce(server, child, route, true));
  };
  /**
   * A route measured on several servers in rounds, the order flipped each round, each
   * server's best round kept: on a shared host a burst of other work can halve one 5 s
   * window, and the best round is the one least disturbed.
   */
  const measureRounds = async (servers: [Server, Pick<Child, 'url' | 'cpu'>, Route][], rounds: number) => {
    const best = new Map<Server, HttpFigure>();
    for (let round = 0; round < rounds; round += 1) {
      for (const [server, child, route] of round % 2 ? [...servers].reverse() : servers) {
        const figure = await measureOnce(server, child, route, round === 0);
        if (figure.rps > (best.get(server)?.rps ?? -1)) best.set(server, figure);
      }
    }
    for (const [server] of servers) figures.push(best.get(server)!);
  };
  const measure = async (server: Server, child: Pick<Child, 'url' | 'cpu'>) => {
    for (const route of routes) await measureRoute(server, child, route);
  };

  const routesFile = path.join(workDir, 'ceiling-routes.json');
  fs.writeFileSync(routesFile, JSON.stringify(recorded));
  const ceilingPort = await freePort();
  const ceiling = await startChild({
    name: 'ceiling',
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'scripts/bench/ceiling.ts'), String(ceilingPort), routesFile],
    cwd: ROOT,
    port: ceilingPort,
    probePath: routes[0].url,
  });
  try {
    // the ceiling is measured right beside the trees on its routes, not minutes later: on a
    // shared machine a ratio of figures taken far apart measures the machine's drift too
    const servers: [Server, Pick<Child, 'url' | 'cpu'>, Route[]][] = [...trees, ['ceiling', ceiling, trees[0][2]]];
    for (let i = 0; i < trees[0][2].length; i += 1) {
      const ceilingRoute = trees[0][2][i].ceiling;
      const here = servers
        .filter(([server]) => server !== 'ceiling' || ceilingRoute)
        .map(([server, child, own]) => [server, child, own[i]] as [Server, Pick<Child, 'url' | 'cpu'>, Route]);
      await measureRounds(i % 2 ? here.reverse() : here, ceilingRoute ? CEILING_ROUNDS : 1);
    }
  } finally {
    await ceiling.stop();
  }

  let prism: Child | null = null;
  let prismStartMs: number | null = null;
  try {
    const port = await freePort();
    prism = await startChild({
      name: 'prism',
      command: path.join(ROOT, 'node_modules/.bin/prism'),
      args: ['mock', path.join(ROOT, 'spec/control-plane.openapi.yaml'), '-p', String(port), '-h', '127.0.0.1'],
      cwd: ROOT,
      port,
      probePath: routes[0].url,
      probeHeaders: ap.headers,
      timeoutMs: 60_000,
    });
    prismStartMs = prism.startMs;
    await measure('prism', prism);
  } catch (err) {
    skipped.push({ what: 'Prism mock', reason: (err as Error).message });
  } finally {
    await prism?.stop();
  }
  return { figures, skipped, prismStartMs };
}
