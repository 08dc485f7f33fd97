// What one enqueued run costs a replica on a real PostgreSQL, end to end (issue 67: ≤ 12
// statements per run): a server in process on its own database, runs of the plain echo graph
// created one after another on one thread with multitask_strategy enqueue, as the bench's
// PostgreSQL phase sends them. Counted client-side at pg's Client.query (every pool goes
// through it), from the first create to the last run's end, so the count is of statements
// sent, not of time: the replica's duties that go by the clock (lease renewals, keep-alives,
// the look for abandoned claims) are left out, and nothing is read to wait for the end.
// A run today: the create (the thread's lock, its assistant and thread read together, the
// records written, the lock given back), its claim, its first reads (one statement), its
// events (two batches), its end read and its fenced outcome, its log closed: 11 or 12 with
// a claim that found nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { freshDatabaseUrl } from '../../support/postgres.ts';

const RUNS = 12;
const MAX_PER_RUN = 12;
/** Statements the replica sends by the clock, whatever its runs: not a run's cost. */
const BY_THE_CLOCK = [/^SELECT 1$/, /SET lease_until/, /^SELECT run_id, replica, token FROM agentplane_run_claims/];

let sent: string[] | null = null;
const clientQuery = pg.Client.prototype.query;

describe('an enqueued run on PostgreSQL, end to end', () => {
  let server: TestServer;

  before(async () => {
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      sent?.push((typeof first === 'string' ? first : (first?.text ?? '')).replace(/\s+/g, ' ').trim());
      return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof clientQuery;
    server = await startTestServer({ env: { DATABASE_URL: await freshDatabaseUrl() }, runWorkers: '0' });
  });

  after(async () => {
    pg.Client.prototype.query = clientQuery;
    await server?.close();
  });

  const create = async (threadId: string, content: string): Promise<string> => {
    const res = await server.api(`/threads/${threadId}/runs`, {
      method: 'POST',
      json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content }] }, multitask_strategy: 'enqueue' },
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { run_id: string }).run_id;
  };

  it(`costs at most ${MAX_PER_RUN} statements, every guarantee's write included`, async () => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    // the first runs warm the code paths and the pools' connections up
    let last = '';
    for (let i = 0; i < 3; i += 1) last = await create(thread.thread_id, `warm ${i}`);
    assert.equal((await server.api(`/threads/${thread.thread_id}/runs/${last}/join`)).status, 200);

    sent = [];
    for (let i = 0; i < RUNS; i += 1) last = await create(thread.thread_id, `run ${i}`);
    // the last run's log closed (its `end` row): watched in what was sent, not read
    const ended = (s: string) => s.startsWith('WITH last AS (INSERT INTO agentplane_run_events');
    const deadline = Date.now() + 30_000;
    while (sent.filter(ended).length < RUNS) {
      assert.ok(Date.now() < deadline, `only ${sent.filter(ended).length} of ${RUNS} runs ended in 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // its statement answered too
    await new Promise((resolve) => setTimeout(resolve, 50));
    const statements = sent.filter((s) => !BY_THE_CLOCK.some((re) => re.test(s)));
    sent = null;

    const perRun = statements.length / RUNS;
    assert.ok(perRun <= MAX_PER_RUN, `${perRun} statements per run:\n${statements.map((s) => s.slice(0, 110)).join('\n')}`);

    // and the runs did what they are for: each once, in order, after the warm-up's
    const state = (await (await server.api(`/threads/${thread.thread_id}/state`)).json()) as { values: { messages: { content: string }[] } };
    const contents = state.values.messages.map((m) => m.content);
    const expected = [...Array.from({ length: 3 }, (_, i) => `warm ${i}`), ...Array.from({ length: RUNS }, (_, i) => `run ${i}`)].flatMap((c) => [c, c]);
    assert.deepEqual(contents, expected);
  });
});
