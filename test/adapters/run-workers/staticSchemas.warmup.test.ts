// The schema warm-up (AGENTPLANE_SCHEMA_WARMUP, on by default; issue 57, point 5): the graphs'
// TypeScript types are read in the background once the server listens and is idle, not during its start
// (its worker, the TypeScript compiler, cost ~0.3 s of the start and ~100 MB of the idle
// server), and that worker ends soon after, its answers kept; the schemas then answer at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { schemaReadings, schemaWorkers } from '../../../src/adapters/run-workers/staticSchemas.ts';

/** Polls until `done` holds, for up to `ms`; whether it did. */
async function within(ms: number, done: () => boolean): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await delay(50)) if (done()) return true;
  return done();
}

describe('schema warm-up', () => {
  let server: InProcessApp;
  // a fresh copy of graphs whose types no answer kept on disk covers
  const fresh = path.join(ROOT, '.cache', `typed-graphs-${randomUUID()}`);
  let readingsBefore = 0;
  const readings = () => schemaReadings.syntax + schemaReadings.checker;
  before(async () => {
    fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'typed-graphs'), fresh, { recursive: true });
    // a test file before this one in the same process (test groups) may have left a worker,
    // which ends 15 s after a request's reading
    assert.ok(await within(30_000, () => schemaWorkers() === 0), 'no schema worker left from an earlier test');
    readingsBefore = readings();
    server = await areaApp('agent-server', {
      env: { AGENTPLANE_SCHEMA_WARMUP: '1' },
      project: { graphs: { typed: `${path.join(fresh, 'graphs.ts')}:graph` } },
    });
  });
  after(async () => {
    await server.close();
    fs.rmSync(fresh, { recursive: true, force: true });
  });

  it('starts no schema worker during the start, reads the types after listening unasked, then ends the worker', { timeout: 90_000 }, async () => {
    assert.equal(schemaWorkers(), 0, 'no compiler loaded while the server started');
    assert.equal((await server.api('/ok')).status, 200);
    // a busy process (requests, runs) keeps the warm-up waiting: it would compete for the cores.
    // First busy as on a host whose cores other processes fill: its event loop busy while it
    // gets almost no CPU (blocked, not computing), then busy computing.
    const blocked = new Int32Array(new SharedArrayBuffer(4));
    for (const end = Date.now() + 2_000; Date.now() < end; await delay(1)) Atomics.wait(blocked, 0, 0, 20);
    for (const end = Date.now() + 2_000; Date.now() < end; await delay(1)) for (const slice = Date.now() + 20; Date.now() < slice;);
    assert.equal(schemaWorkers(), 0, 'no warm-up while the process is busy');
    assert.equal(readings(), readingsBefore, 'no types read while the process is busy');
    assert.ok(await within(60_000, () => readings() > readingsBefore), 'the graph’s types were read in the background without a request');
    assert.ok(await within(10_000, () => schemaWorkers() === 0), 'the warm-up’s worker ended soon after its reading');
    // the answer read in the background is the one the API gives, without a worker
    const schemas = (await (await server.api('/assistants/typed/schemas')).json()) as { config_schema: { properties: Record<string, unknown> } };
    assert.deepEqual(schemas.config_schema.properties.model_name, { type: 'string' });
    assert.equal(schemaWorkers(), 0);
  });
});
