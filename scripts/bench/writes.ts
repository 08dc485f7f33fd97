// 2. Writes as data grows: POST and PATCH latency with 100, 10,000 and 100,000 deployments
// in the store, and reads (by id, and the first page of the list) beside them. The embedded
// store is seeded through the API itself (pipelined concurrent POSTs), so the seeded records
// are exactly what the server would hold after real use; PostgreSQL past the first level is
// seeded in SQL with copies of a deployment the server made (pgSeed.ts), as the API is too
// slow there to reach 100,000 within the phase.
import { randomUUID } from 'node:crypto';
import { expectStatus, type Agentplane } from './agentplane.ts';
import type { StoreKind, WriteFigure } from './figures.ts';
import { deploymentBody } from './http.ts';
import { load, type LoadResult } from './load.ts';
import { delay } from './proc.ts';
import type { PgSeeder } from './pgSeed.ts';

export const LEVELS = [100, 10_000, 100_000];
/** Requests per sample, sent one at a time so p50 is the cost of one write, not queueing. */
const SAMPLE = 300;
const SEED_CONNECTIONS = 16;
const SEED_CHUNK = 10_000;

export interface WritePhase {
  figures: WriteFigure[];
  seeding: { what: string; count: number; seconds: number; perSecond: number; how: string }[];
  skipped: { what: string; reason: string }[];
}

/** `bulk`: seeds every level after the first (which is always made through the API). */
export async function measureWrites(
  ap: Agentplane,
  seedBudgetS: number,
  log: (s: string) => void,
  store: StoreKind = 'embedded',
  bulk?: PgSeeder,
): Promise<WritePhase> {
  const figures: WriteFigure[] = [];
  const seeding: WritePhase['seeding'] = [];
  const skipped: WritePhase['skipped'] = [];
  const run = randomUUID().slice(0, 8);
  let n = 0;
  const nextBody = () => JSON.stringify(deploymentBody(`b${run}-${(n += 1)}`));
  const post = { url: `${ap.url}/v2/deployments`, method: 'POST', headers: { ...ap.headers, 'content-type': 'application/json' } };

  await warmUp(ap, run, log);
  let existing = 0;
  let seedSeconds = 0;
  const ids: string[] = [];
  for (const level of LEVELS) {
    const want = level - existing;
    const started = performance.now();
    const viaBulk = bulk !== undefined && ids.length > 0 && want > 0;
    if (viaBulk) {
      await bulk.seed(want);
      existing = level;
    }
    while (existing < level) {
      if (seedSeconds + (performance.now() - started) / 1000 > seedBudgetS) break;
      const amount = Math.min(SEED_CHUNK, level - existing);
      const result = await load({ ...post, makeBody: nextBody, connections: SEED_CONNECTIONS, amount });
      if (result.non2xx || result.errors) throw new Error(`seeding failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
      existing += amount;
    }
    const seconds = (performance.now() - started) / 1000;
    seedSeconds += seconds;
    if (want > 0) {
      const how = viaBulk ? bulk.how : `POST /v2/deployments through the API, ${SEED_CONNECTIONS} concurrent connections`;
      seeding.push({
        what: `deployments to ${level.toLocaleString('en-US')}`,
        count: want,
        seconds: Math.round(seconds * 10) / 10,
        perSecond: Math.round(want / seconds),
        how,
      });
    }
    if (existing < level) {
      skipped.push({
        what: `writes at ${level.toLocaleString('en-US')} deployments`,
        reason: `seeding reached ${existing} deployments within its ${seedBudgetS} s budget (${Math.round(want / seconds)} POST/s)`,
      });
      break;
    }
    if (ids.length === 0) {
      const list = await ap.api('/v2/deployments?limit=100');
      expectStatus('GET /v2/deployments', list, 200);
      ids.push(...list.body.resources.map((d: { id: string }) => d.id));
    }
    // the background work the seeding started (deployer phases; the embedded store's snapshot
    // of every shard the seeding wrote, which at 100,000 deployments overlapped the samples
    // and doubled their p50) is done before a level is measured, as PostgreSQL's is ANALYZEd
    const idleAfter = await untilIdle(ap);
    if (idleAfter.busy) log(`  the server was still busy ${Math.round(idleAfter.ms / 1000)} s after seeding ${level}; measuring anyway`);
    await bulk?.analyze();

    const postResult = serial(await load({ ...post, makeBody: nextBody, connections: 1, amount: SAMPLE }));
    figures.push({ op: 'POST /v2/deployments', existing: level, store, ...postResult });
    log(`  POST  at ${String(level).padStart(6)}: p50 ${postResult.p50Ms} ms p99 ${postResult.p99Ms} ms (${postResult.rps}/s, non-2xx ${postResult.non2xx})`);
    existing += postResult.requests;

    let p = 0;
    const patchResult = serial(
      await load({
        url: ap.url,
        method: 'PATCH',
        headers: { ...ap.headers, 'content-type': 'application/json' },
        connections: 1,
        amount: SAMPLE,
        requests: [
          {
            setupRequest: (req) => {
              p += 1;
              return {
                ...req,
                method: 'PATCH',
                path: `/v2/deployments/${ids[p % ids.length]}`,
                body: JSON.stringify({ source_config: { build_command: `npm run build-${p}` } }),
              };
            },
          },
        ],
      }),
    );
    figures.push({ op: 'PATCH /v2/deployments/{id}', existing: level, store, ...patchResult });
    log(
      `  PATCH at ${String(level).padStart(6)}: p50 ${patchResult.p50Ms} ms p99 ${patchResult.p99Ms} ms (${patchResult.rps}/s, non-2xx ${patchResult.non2xx})`,
    );

    let g = 0;
    const getResult = serial(
      await load({
        url: ap.url,
        headers: ap.headers,
        connections: 1,
        amount: SAMPLE,
        requests: [{ setupRequest: (req) => ({ ...req, method: 'GET', path: `/v2/deployments/${ids[(g += 1) % ids.length]}` }) }],
      }),
    );
    figures.push({ op: 'GET /v2/deployments/{id}', existing: level, store, ...getResult });
    log(`  GET   at ${String(level).padStart(6)}: p50 ${getResult.p50Ms} ms p99 ${getResult.p99Ms} ms (${getResult.rps}/s, non-2xx ${getResult.non2xx})`);

    // the first page, newest first: with every deployment in one tenant, the list's index walk starts at the end
    const listResult = serial(await load({ url: `${ap.url}/v2/deployments?limit=20`, headers: ap.headers, connections: 1, amount: SAMPLE }));
    figures.push({ op: 'GET /v2/deployments?limit=20', existing: level, store, ...listResult });
    log(`  LIST  at ${String(level).padStart(6)}: p50 ${listResult.p50Ms} ms p99 ${listResult.p99Ms} ms (${listResult.rps}/s, non-2xx ${listResult.non2xx})`);
  }
  return { figures, seeding, skipped };
}

/** Below this share of one core the server counts as idle (timers, metrics). */
const IDLE_CPU = 0.05;

/** Resolves once the server's CPU over a quarter second is below IDLE_CPU, or after `maxMs` (then `busy`). */
export async function untilIdle(ap: Agentplane, maxMs = 60_000): Promise<{ ms: number; busy: boolean }> {
  const started = performance.now();
  await delay(500);
  for (;;) {
    const before = ap.cpu();
    await delay(250);
    const ms = performance.now() - started;
    if ((ap.cpu() - before) / 0.25 < IDLE_CPU) return { ms, busy: false };
    if (ms > maxMs) return { ms, busy: true };
  }
}

/**
 * The writes phases grow one tenant to 100,000 deployments, a thousand times the default
 * per-tenant quotas (issue 83: 100 deployments, and 200 replicas with each deployment counting
 * one), which refused the warm-up's 101st create. An operator who keeps that many raises them;
 * so does the bench, and the report says so.
 */
export const WRITES_QUOTA_ENV = { AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT: '1000000', AGENTPLANE_MAX_REPLICAS_PER_TENANT: '1000000' };

/** With one connection, writes/s is the inverse of the mean latency (autocannon's clock ticks once a second). */
function serial(result: LoadResult): LoadResult {
  return { ...result, rps: result.meanMs > 0 ? Math.round(1000 / result.meanMs) : result.rps };
}

/**
 * The level of 100 must not be measured on a cold process (the JIT would make it look slower
 * than the bigger levels), yet warm-up writes would add deployments: they are created, patched
 * and deleted again, and the bench waits until the deployer has removed them.
 */
async function warmUp(ap: Agentplane, run: string, log: (s: string) => void): Promise<void> {
  const count = 2000;
  let n = 0;
  const created = await load({
    url: `${ap.url}/v2/deployments`,
    method: 'POST',
    headers: { ...ap.headers, 'content-type': 'application/json' },
    makeBody: () => JSON.stringify(deploymentBody(`warm${run}-${(n += 1)}`)),
    connections: 4,
    amount: count,
  });
  if (created.non2xx || created.errors) throw new Error(`warm-up: ${created.non2xx} non-2xx, ${created.errors} errors`);
  const ids: string[] = [];
  for (let offset = 0; ids.length < count; offset += 100) {
    const page = await ap.api(`/v2/deployments?limit=100&offset=${offset}&name_contains=warm${run}`);
    expectStatus('GET /v2/deployments', page, 200);
    if (page.body.resources.length === 0) break;
    ids.push(...page.body.resources.map((d: { id: string }) => d.id));
  }
  let i = 0;
  const next = () => ids[i++ % ids.length];
  await load({
    url: ap.url,
    headers: { ...ap.headers, 'content-type': 'application/json' },
    connections: 4,
    amount: count,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          method: 'PATCH',
          path: `/v2/deployments/${next()}`,
          body: JSON.stringify({ source_config: { build_command: `warm ${i}` } }),
        }),
      },
    ],
  });
  i = 0;
  await load({
    url: ap.url,
    headers: ap.headers,
    connections: 4,
    amount: ids.length,
    requests: [{ setupRequest: (req) => ({ ...req, method: 'DELETE', path: `/v2/deployments/${next()}` }) }],
  });
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const left = await ap.api(`/v2/deployments?limit=1&name_contains=warm${run}`);
    if (left.status === 200 && left.body.resources.length === 0) {
      log(`  warm-up: ${count} deployments created, patched and deleted`);
      return;
    }
    await delay(250);
  }
  throw new Error('warm-up deployments were not removed within 30 s');
}
