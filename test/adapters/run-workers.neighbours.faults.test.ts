// A hostile graph fails only its own run (issue 28, defect 5). Each kind — one that throws
// outside its run, calls process.exit, exhausts its worker's heap or never yields — runs
// beside 2 innocent runs of other threads (one in each of the 2 workers, so the hostile run
// shares a worker with one of them; each crash retries its neighbours in fresh workers, which
// is most of this file's CPU, so 2 rather than more):
// - with agent-server auth on, the innocents are another tenant's, and a worker never holds
//   two tenants' runs at once: the innocents are never touched (one attempt each);
// - with auth off everyone is one tenant and the hostile run shares a worker with innocents:
//   its crash retries the worker's runs as attempt 2, each alone in a fresh worker, where the
//   innocents succeed and the hostile run fails again, now named as the cause.
// Either way the hostile run ends in error (timeout for the one that never yields) saying
// why, and both innocents succeed. With auth on, two tenants' runs are never in one worker
// at the same time.
// Every kind runs with auth off, where its crash reaches the innocents and each kind's cause
// must be named; with auth on one kind shows the other tenant untouched: keeping tenants
// apart is the worker assignment, the same whatever ends the hostile worker.
// Only the server of the kind that never yields has a run time limit: on a loaded machine a
// crash retried in a fresh worker, or a heap filled, can take longer than any limit that
// keeps that case short, and would end in timeout instead of the crash it is.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { startTestServer, type TestServer } from '../support/server.ts';
import { testProject } from '../fixtures/agent-server/project.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });

const project = {
  graphs: {
    ...testProject.graphs,
    crash: './test/fixtures/graphs/workers.ts:crash',
    spin: './test/fixtures/graphs/workers.ts:spin',
    hog: './test/fixtures/graphs/workers.ts:hog',
    whereabouts: './test/fixtures/graphs/workers.ts:whereabouts',
  },
};

/** Each hostile kind: its graph and input, and the end of its run. */
const HOSTILE = [
  { kind: 'throws outside its run', graph: 'crash', input: 'throw', status: 'error', error: 'WorkerCrashed', message: /RangeError: thrown outside the run/ },
  { kind: 'calls process.exit', graph: 'crash', input: 'exit', status: 'error', error: 'WorkerCrashed', message: /exited \(code 7\)/ },
  { kind: 'exhausts its heap', graph: 'hog', input: 'allocate', status: 'error', error: 'WorkerCrashed', message: /ran out of memory/ },
  { kind: 'never yields', graph: 'spin', input: 'loop', status: 'timeout', error: 'TimeoutError', message: /exceeded its time limit of 12 s/ },
] as const;

type Event = { event: string; data: unknown };

async function eventsOf(client: Client, threadId: string, runId: string): Promise<Event[]> {
  const events: Event[] = [];
  for await (const chunk of client.runs.joinStream(threadId, runId)) events.push(chunk);
  return events;
}

const attemptsOf = (events: Event[]) => events.filter((e) => e.event === 'metadata').map((e) => (e.data as { attempt: number }).attempt);

/** Innocent runs that last 2 s each (well within the 12 s limit where there is one, a retried one included), all executing before it returns. */
async function startInnocents(client: Client): Promise<{ threadId: string; runId: string }[]> {
  const runs = await Promise.all(
    [0, 1].map(async (i) => {
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, 'slow', { input: say(`innocent ${i}`), context: { delay_ms: 2000 } });
      return { threadId: thread.thread_id, runId: run.run_id };
    }),
  );
  for (const { threadId, runId } of runs) {
    for await (const chunk of client.runs.joinStream(threadId, runId)) if (chunk.event === 'metadata') break;
  }
  return runs;
}

const SERVERS = [
  { auth: true, kinds: HOSTILE.slice(0, 1), limited: false },
  { auth: false, kinds: HOSTILE.filter((h) => h.status !== 'timeout'), limited: false },
  { auth: false, kinds: HOSTILE.filter((h) => h.status === 'timeout'), limited: true },
];

for (const { auth, kinds, limited } of SERVERS) {
  const title = `agent-server auth ${auth ? 'on (two tenants)' : 'off (one space)'}${limited ? ', a 12 s run time limit' : ''}`;
  describe(`a hostile graph beside 2 innocent runs, ${title}`, () => {
    let server: TestServer;
    let hostile: Client;
    let innocent: Client;
    before(async () => {
      const tenants = `key-h:${randomUUID()},key-i:${randomUUID()}`;
      server = await startTestServer({
        project,
        // each crash retries its neighbours in fresh workers: JavaScript graphs spare each a
        // TypeScript loader (TypeScript graphs in workers: test/adapters/run-workers.e2e.test.ts)
        compiledModules: true,
        dataDir: null,
        env: {
          AGENTPLANE_RUN_WORKERS: '2',
          ...(limited ? { AGENTPLANE_RUN_TIMEOUT_S: '12' } : {}),
          AGENTPLANE_RUN_WORKER_MEMORY_MB: '192',
          ...(auth ? { AGENTPLANE_AGENT_SERVER_AUTH: '1', AGENTPLANE_API_KEYS: tenants } : {}),
        },
      });
      const clientOf = (apiKey: string) => new Client({ apiUrl: server.url, ...(auth ? { apiKey } : {}), callerOptions: { maxRetries: 0 } });
      hostile = clientOf('key-h');
      innocent = clientOf('key-i');
      // both workers load the graphs before the first scenario: the time limit counts from a run's start
      await Promise.all([
        hostile.runs.wait(null, 'echo', { input: say('warm up') }),
        innocent.runs.wait(null, 'slow', { input: say('warm up'), context: { delay_ms: 500 } }),
      ]);
    });
    after(() => server.close());

    if (auth) {
      it("never executes two tenants' runs in one worker at the same time", { timeout: 120_000 }, async () => {
        type Where = { tenant: string; worker: number; from: number; to: number };
        const runAs = async (tenant: string, client: Client): Promise<Where> => {
          const thread = await client.threads.create();
          const values = (await client.runs.wait(thread.thread_id, 'whereabouts', { input: say(tenant), context: { delay_ms: 1000 } })) as {
            messages: { content: string }[];
          };
          return { tenant, ...JSON.parse(values.messages.at(-1)!.content) };
        };
        const runs = await Promise.all([0, 1, 2, 3].flatMap(() => [runAs('h', hostile), runAs('i', innocent)]));
        for (const a of runs.filter((r) => r.tenant === 'h')) {
          for (const b of runs.filter((r) => r.tenant === 'i' && r.worker === a.worker)) {
            assert.ok(a.to <= b.from || b.to <= a.from, `worker ${a.worker} ran both tenants at once: ${JSON.stringify([a, b])}`);
          }
        }
      });
    }

    for (const h of kinds) {
      it(`a graph that ${h.kind} fails its own run, naming the cause; the innocents all succeed`, { timeout: 180_000 }, async () => {
        const innocents = await startInnocents(innocent);
        const thread = await hostile.threads.create();
        const run = await hostile.runs.create(thread.thread_id, h.graph, { input: say(h.input) });
        const events = await eventsOf(hostile, thread.thread_id, run.run_id);
        const ended = await hostile.runs.get(thread.thread_id, run.run_id);
        assert.equal(ended.status, h.status);
        const error = events.find((e) => e.event === 'error')?.data as { error: string; message: string };
        assert.equal(error?.error, h.error, JSON.stringify(error));
        assert.match(error.message, h.message);
        assert.equal(events.at(-1)?.event, 'error', 'error is the last event of a failed run');

        const attempts: number[][] = [];
        for (const { threadId, runId } of innocents) {
          const innocentEvents = await eventsOf(innocent, threadId, runId);
          attempts.push(attemptsOf(innocentEvents));
          assert.equal(
            (await innocent.runs.get(threadId, runId)).status,
            'success',
            `innocent run ${runId}: ${JSON.stringify(innocentEvents.filter((e) => e.event === 'error'))}`,
          );
          const state = await innocent.threads.getState(threadId);
          assert.equal(
            (state.values as { messages: { content: string }[] }).messages.at(-1)?.content,
            (state.values as { messages: { content: string }[] }).messages[0].content,
            'the innocent run answered',
          );
        }
        if (auth) {
          // another tenant's run never shared their worker: none was interrupted
          assert.deepEqual(attempts, [[1], [1]]);
        } else {
          // the hostile run shared a worker with innocents: they went on as attempt 2
          assert.ok(
            attempts.some((a) => a.join() === '1,2'),
            `no innocent run was retried: ${JSON.stringify(attempts)}`,
          );
          assert.deepEqual(attemptsOf(events), [1, 2], 'the hostile run was retried once, alone, and failed again');
        }
      });
    }
  });
}
