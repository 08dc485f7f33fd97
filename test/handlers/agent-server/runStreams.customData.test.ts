// Every stream event's data goes out as JSON, as upstream's server writes it
// (`serialiseAsDict`): custom data that is text arrives as a JSON string, which the SDK
// parses, whether the graph runs in a run worker (the default) or on the request loop.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

const graphs = { custom_text: path.join(ROOT, 'test/fixtures/graphs/customText.ts') + ':customText' };

for (const workers of ['default', '0']) {
  describe(`custom stream data (AGENTPLANE_RUN_WORKERS=${workers})`, () => {
    let server: InProcessApp;
    before(async () => {
      server = await areaApp('agent-server', { project: { graphs }, compiledModules: true, dataDir: null, runWorkers: workers });
    });
    after(() => server.close());

    it('goes out on SSE as JSON: text quoted, numbers and dicts as they are', async () => {
      const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
      const res = await server.api(`/threads/${thread.thread_id}/runs/stream`, {
        method: 'POST',
        json: { assistant_id: 'custom_text', input: { messages: [] }, stream_mode: ['custom'] },
      });
      assert.equal(res.status, 200);
      const data = (await res.text())
        .split('\n\n')
        .filter((block) => block.startsWith('event: custom'))
        .map((block) =>
          block
            .split('\n')
            .find((line) => line.startsWith('data: '))!
            .slice('data: '.length),
        );
      assert.deepEqual(data, ['"plain text, \\"quoted\\""', '42', '{"kind":"dict"}']);
    });

    it("reaches the SDK's stream as the values the graph wrote", async () => {
      const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
      const thread = await client.threads.create();
      const custom: unknown[] = [];
      for await (const chunk of client.runs.stream(thread.thread_id, 'custom_text', { input: { messages: [] }, streamMode: 'custom' })) {
        if (chunk.event === 'custom') custom.push(chunk.data);
      }
      assert.deepEqual(custom, ['plain text, "quoted"', 42, { kind: 'dict' }]);
    });
  });
}
