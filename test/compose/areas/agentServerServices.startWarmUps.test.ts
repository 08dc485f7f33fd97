// What a start warms in the background comes in turn and without a pause, the run path's warm-up
// last (issue 89): the graphs' schemas were read, and the compiler's worker ended, a moment after
// the run path's warm-up, often in the first run after a start; and a pause for idleness between
// them is when a client that waited for the server to settle sends its first run. With both
// warm-ups on (the product's default) and the process kept a little busy throughout (under the
// idleness the schemas' warm-up waits for otherwise), the run path is warmed, and by then the
// types are read and no schema worker is left to end.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import { schemaReadings, schemaWorkers } from '../../../src/adapters/run-workers/staticSchemas.ts';

// a fresh copy of graphs whose types no answer kept on disk covers: their reading takes a worker
const fresh = path.join(ROOT, '.cache', `typed-graphs-${randomUUID()}`);
const readings = () => schemaReadings.syntax + schemaReadings.checker;
/** What was so when the run path's warm-up said it was over. */
let atRunPathWarmed: { readings: number; workers: number } | undefined;
/** The start's debug lines about its last steps, in order. */
const lastSteps: string[] = [];
let readingsBefore = 0;
let server: InProcessApp;

before(async () => {
  fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'typed-graphs'), fresh, { recursive: true });
  readingsBefore = readings();
  server = await areaApp('agent-server', {
    runWorkers: '1',
    env: { AGENTPLANE_SCHEMA_WARMUP: '1', AGENTPLANE_RUN_WORKER_WARMUP: '1' },
    project: { graphs: { typed: `${path.join(fresh, 'graphs.ts')}:graph` } },
    log: createLogger('debug', {}, (line) => {
      if (line.includes('"the run path is warmed"')) atRunPathWarmed ??= { readings: readings(), workers: schemaWorkers() };
      for (const step of ['the run path is warmed', "the run store's first reads are made"]) if (line.includes(`"${step}"`)) lastSteps.push(step);
    }),
  });
});
/**
 * A fifth of a core of the main thread, as a client's requests would keep it, until the test ends:
 * twice the tenth under which the warm-ups call the process idle (startWarmUps.ts), so a pause
 * for idleness would never end; a third of a core burnt ~1.4 CPU-s more over the file.
 */
const busy = setInterval(() => {
  for (const end = performance.now() + 10; performance.now() < end;);
}, 50);
after(async () => {
  clearInterval(busy);
  await server.close();
  fs.rmSync(fresh, { recursive: true, force: true });
});

it('warms the run path last, with no pause for idleness: the graphs’ types are read and their worker has ended by then', { timeout: 120_000 }, async () => {
  for (const end = Date.now() + 100_000; !atRunPathWarmed && Date.now() < end;) await delay(50);
  assert.ok(atRunPathWarmed, 'the run path was warmed');
  assert.ok(atRunPathWarmed.readings > readingsBefore, 'the graphs’ types were read before the run path’s warm-up was over');
  assert.equal(atRunPathWarmed.workers, 0, 'no schema worker was left to end after the run path’s warm-up');
});

it("then reads the server's own run store as a run's first reads do: its readers are made before the first run (issue 89)", { timeout: 120_000 }, async () => {
  for (const end = Date.now() + 100_000; lastSteps.length < 2 && Date.now() < end;) await delay(50);
  assert.deepEqual(lastSteps, ['the run path is warmed', "the run store's first reads are made"]);
});
