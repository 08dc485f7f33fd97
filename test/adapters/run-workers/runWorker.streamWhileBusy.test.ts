// A run worker posts its stream events in batches (runWorker.ts: each post wakes the main
// thread), yet a client receives each event while the graph is still working, as from a graph
// on the request loop: an event written before a wait arrives before the wait ends. In a worker,
// events written by a node that computes between awaits of promises alone keep arriving as it
// goes (on the request loop nothing is written to a socket until such a node yields).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

const graphs = { stream_while_busy: path.join(ROOT, 'test/fixtures/graphs/streamWhileBusy.ts') + ':streamWhileBusy' };

for (const workers of ['default', '0']) {
  describe(`stream events while the graph works (AGENTPLANE_RUN_WORKERS=${workers})`, () => {
    let server: InProcessApp;
    before(async () => {
      server = await areaApp('agent-server', { project: { graphs }, compiledModules: true, dataDir: null, runWorkers: workers });
    });
    after(() => server.close());

    it('reach the client as they are written, not at the end of the run', { timeout: 30_000 }, async () => {
      const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
      const thread = await client.threads.create();
      const received: { phase: string; at: number }[] = [];
      for await (const chunk of client.runs.stream(thread.thread_id, 'stream_while_busy', { input: { messages: [] }, streamMode: 'custom' })) {
        if (chunk.event === 'custom') received.push({ phase: (chunk.data as { phase: string }).phase, at: performance.now() });
      }
      const ended = performance.now();
      assert.equal(received[0]?.phase, 'before the wait');
      // the graph waits 600 ms after its first event, then computes for 600 ms (more on a loaded machine)
      assert.ok(ended - received[0].at >= 900, `the first event arrived ${Math.round(ended - received[0].at)} ms before the end`);
      const computing = received.filter((r) => r.phase === 'computing');
      assert.ok(computing.length >= 5, `${computing.length} events while computing`);
      if (workers === '0') return;
      assert.ok(ended - computing[0].at >= 300, `the first event of the computation arrived ${Math.round(ended - computing[0].at)} ms before the end`);
    });
  });
}
