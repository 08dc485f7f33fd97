// A pending run whose record PostgreSQL's json functions cannot read (a `\u0000` stored before
// the door refused it, issue 84) failed the one claim statement of every replica, every 3 s,
// and no run of any tenant ran again. Now it fails alone, with its error; the others run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { migratedDatabaseUrl, withAdmin } from '../../support/postgres.ts';

let app: InProcessApp;
let url: string;
before(async () => {
  url = await migratedDatabaseUrl();
  app = await areaApp('agent-server', { dataDir: null, env: { DATABASE_URL: url } });
});
after(() => app?.close());

const send = async (method: string, path: string, json?: unknown) => {
  const res = await app.api(path, { method, json });
  return { status: res.status, body: (await res.json()) as any };
};
const input = (content: string) => ({ messages: [{ role: 'user', content }] });

test('a run whose record cannot be read fails alone with its error, and a plain run of another thread completes', async () => {
  const thread = (await send('POST', '/threads', {})).body.thread_id as string;
  const stuck = (await send('POST', `/threads/${thread}/runs`, { assistant_id: 'echo', input: input('MARK'), after_seconds: 1 })).body;
  // as an older server stored it: the NUL in the record's json text
  await withAdmin(url, (db) => db.query(`UPDATE agentplane_runs SET doc = replace(doc::text, 'MARK', 'MA\\u0000RK')::json WHERE run_id = $1`, [stuck.run_id]));
  await new Promise((resolve) => setTimeout(resolve, 1_100));

  const other = (await send('POST', '/threads', {})).body.thread_id as string;
  const plain = await send('POST', `/threads/${other}/runs/wait`, { assistant_id: 'echo', input: input('plain') });
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  assert.equal(plain.body.messages.at(-1).content, 'plain');

  const joined = await send('GET', `/threads/${thread}/runs/${stuck.run_id}/join`);
  assert.equal(joined.status, 200);
  assert.equal(joined.body.__error__?.error, 'UnreadableRun', JSON.stringify(joined.body));
  const run = await send('GET', `/threads/${thread}/runs/${stuck.run_id}`);
  assert.equal(run.body.status, 'error');
  assert.equal((await send('GET', `/threads/${thread}`)).status, 200);
  assert.equal((await send('GET', `/threads/${thread}/state`)).status, 200);
  assert.equal((await send('POST', '/threads/search', {})).status, 200);
  // its thread takes runs again
  const next = await send('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'echo', input: input('again') });
  assert.equal(next.body.messages.at(-1).content, 'again');
});
