// The run watchdog (runWorkerPool.ts; issue 65, point 2): a run in a run worker that makes no
// progress for AGENTPLANE_RUN_STALL_TIMEOUT_S — no stream event, checkpoint or store call, no
// model or tool call in flight — ends `error` with a message that says so, even with no run
// time limit, and its worker is replaced; a run that waits on a slow model, or takes many
// short steps, for longer than that is not stopped. Before, a graph stuck on a promise stayed
// `running` until its time limit (an hour by default) or for ever.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';
import { blockThread } from '../../support/blockThread.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const lastWords = (values: unknown) => ((values as { messages?: { content: string }[] }).messages ?? []).at(-1)?.content;
// 3 s, not less: a fresh worker's first run (LangGraph's lazy imports, the first compile) can
// keep its thread busy for over a second on a loaded 2-core machine, and a worker blocked that
// long sends no heartbeat, so a shorter limit stopped the warm-up run itself (CI, 2026-11-27)
const STALL_S = 3;
// how long the runs that must not be stopped last: past the limit and the watchdog round after
// it (STALL_S / 4) with as much again to spare, so a run the watchdog would stop is stopped first
const LONGER_MS = STALL_S * 2 * 1000;

const project = {
  graphs: {
    ...testProject.graphs,
    stuck: './test/fixtures/graphs/stalls.ts:stuck',
    thinking: './test/fixtures/graphs/stalls.ts:thinking',
    stepping: './test/fixtures/graphs/stalls.ts:stepping',
    computing: './test/fixtures/graphs/stalls.ts:computing',
  },
};

describe('the run watchdog', () => {
  let server: InProcessApp;
  let client: Client;
  before(async () => {
    server = await areaApp('agent-server', {
      project,
      compiledModules: true,
      dataDir: null,
      env: { AGENTPLANE_RUN_WORKERS: '1', AGENTPLANE_RUN_STALL_TIMEOUT_S: String(STALL_S), AGENTPLANE_RUN_TIMEOUT_S: '0' },
    });
    client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    await client.runs.wait(null, 'echo', { input: say('warm up') });
  });
  after(() => server.close());

  it('ends a run stuck without progress `error`, saying why, and the next run of its thread succeeds', { timeout: 60_000 }, async () => {
    const thread = await client.threads.create();
    const t0 = performance.now();
    const run = await client.runs.create(thread.thread_id, 'stuck', { input: say('wait for ever') });
    await client.runs.join(thread.thread_id, run.run_id);
    const seconds = (performance.now() - t0) / 1000;
    const ended = (await client.runs.get(thread.thread_id, run.run_id)) as { status: string };
    assert.equal(ended.status, 'error');
    // at the limit, give or take the watchdog's round and a loaded machine
    assert.ok(seconds >= STALL_S && seconds < STALL_S + 20, `ended after ${seconds.toFixed(1)} s`);
    const events: { event: string; data: any }[] = [];
    for await (const chunk of client.runs.joinStream(thread.thread_id, run.run_id)) events.push(chunk);
    const error = events.find((e) => e.event === 'error')?.data;
    assert.equal(error?.error, 'RunStalled', JSON.stringify(events));
    assert.match(error.message, new RegExp(`made no progress for ${Math.round(STALL_S)} s .*AGENTPLANE_RUN_STALL_TIMEOUT_S`));
    // its worker was replaced: the thread and the server go on
    assert.equal(lastWords(await client.runs.wait(thread.thread_id, 'echo', { input: say('still here?') })), 'still here?');
    assert.equal((await client.threads.get(thread.thread_id)).status, 'idle');
  });

  it('does not stop a run waiting on a model call longer than the limit', { timeout: 60_000 }, async () => {
    const values = await client.runs.wait(null, 'thinking', { input: say('slowly'), context: { ms: LONGER_MS } });
    assert.equal(lastWords(values), 'thought about: slowly');
  });

  it('does not stop a run whose many short steps last longer than the limit', { timeout: 60_000 }, async () => {
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, 'stepping', { input: say('step'), context: { ms: LONGER_MS } });
    assert.equal(lastWords(values), 'took 10 steps');
    assert.deepEqual(
      (await client.runs.list(thread.thread_id)).map((r) => r.status),
      ['success'],
    );
  });

  it("does not stop a run while the server's own thread was blocked", { timeout: 60_000 }, async () => {
    // the server runs in this process: a blocked main thread reads none of the worker's
    // heartbeats, and a watchdog round that comes after must not count that time against the run
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'stepping', { input: say('step'), context: { ms: STALL_S * 2 * 1000 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    blockThread(STALL_S * 2 * 1000);
    await client.runs.join(thread.thread_id, run.run_id);
    assert.equal(((await client.runs.get(thread.thread_id, run.run_id)) as { status: string }).status, 'success');
  });

  it('does not stop a run that computes for longer than the limit, yielding now and then', { timeout: 60_000 }, async () => {
    // its worker's heartbeat comes late (as on a machine short of CPU) and finds no callback:
    // the run was busy, not waiting on nothing
    const values = await client.runs.wait(null, 'computing', {
      input: say('compute'),
      // busy stretches longer than two heartbeats (STALL_S / 4 each), so each beat comes late
      context: { ms: STALL_S * 2 * 1000, chunkMs: STALL_S * 0.6 * 1000 },
    });
    assert.match(String(lastWords(values)), /^computed in \d+ rounds$/);
  });
});
