// Issue 28, item 10: open streams are capped per client (the API key's tenant, else the peer
// address) and in all. One over a cap is 429 in the documented {detail} shape with Retry-After,
// and starts nothing; a closed stream gives its slot back. (A protocol WebSocket's
// subscriptions under the same caps: test/runtime/transports/websocket/socketDoor.test.ts.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

describe('caps on open streams', () => {
  let server: InProcessApp;
  const tenantA = randomUUID();
  const tenantB = randomUUID();
  const opened: AbortController[] = [];
  const headers = (key: string) => ({ 'x-api-key': key, 'content-type': 'application/json' });

  before(async () => {
    server = await areaApp('agent-server', {
      project: testProject,
      dataDir: null,
      env: {
        AGENTPLANE_AGENT_SERVER_AUTH: '1',
        AGENTPLANE_API_KEYS: `key-a:${tenantA},key-b:${tenantB}`,
        AGENTPLANE_MAX_STREAMS_PER_CLIENT: '2',
        AGENTPLANE_MAX_STREAMS: '3',
      },
    });
  });
  after(async () => {
    for (const c of opened) c.abort();
    await server.close();
  });

  const newThread = async (key: string) =>
    ((await (await server.fetch(`${server.url}/threads`, { method: 'POST', headers: headers(key), body: '{}' })).json()) as { thread_id: string }).thread_id;

  /** Joins a thread's stream and keeps it open; resolves once the answer's head is in. */
  const join = async (key: string, threadId: string) => {
    const controller = new AbortController();
    const res = await server.fetch(`${server.url}/threads/${threadId}/stream`, { headers: headers(key), signal: controller.signal });
    if (res.status === 200) opened.push(controller);
    else await res.body?.cancel();
    return { res, close: () => controller.abort() };
  };

  it('refuses the stream past a client’s cap with 429 and starts no run; another client is capped by the total; a closed stream frees its slot', async () => {
    const threadA = await newThread('key-a');
    const threadB = await newThread('key-b');
    const first = await join('key-a', threadA);
    const second = await join('key-a', threadA);
    assert.equal(first.res.status, 200);
    assert.equal(second.res.status, 200);

    // A's third: a run stream, refused before the run is made
    const refused = await server.fetch(`${server.url}/threads/${threadA}/runs/stream`, {
      method: 'POST',
      headers: headers('key-a'),
      body: JSON.stringify({ assistant_id: 'echo', input: { messages: [] } }),
    });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '5');
    assert.match(((await refused.json()) as { detail: string }).detail, /Too many open streams for this client \(2, AGENTPLANE_MAX_STREAMS_PER_CLIENT\)/);
    assert.deepEqual(
      await (await server.fetch(`${server.url}/threads/${threadA}/runs`, { headers: headers('key-a') })).json(),
      [],
      'the refused stream made no run',
    );

    // B is its own client: one stream is within its cap and fills the total (3); the next is the total's refusal
    assert.equal((await join('key-b', threadB)).res.status, 200);
    const overTotal = await join('key-b', threadB);
    assert.equal(overTotal.res.status, 429);

    // A closes one: its slot comes back once the server sees the stream gone
    first.close();
    const deadline = Date.now() + 30_000;
    let again = await join('key-a', threadA);
    while (again.res.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      again = await join('key-a', threadA);
    }
    assert.equal(again.res.status, 200);
  });

  it('non-streaming requests are not counted', async () => {
    const res = await server.fetch(`${server.url}/threads/search`, { method: 'POST', headers: headers('key-a'), body: '{}' });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

describe('a stream that ends gives its slot back', () => {
  it('with a cap of one, streams read to their end follow one another', async () => {
    const server = await areaApp('agent-server', { project: testProject, dataDir: null, env: { AGENTPLANE_MAX_STREAMS_PER_CLIENT: '1' } });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await server.fetch(`${server.url}/runs/stream`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ assistant_id: 'echo', input: { messages: [{ role: 'user', content: `n${i}` }] } }),
        });
        assert.equal(res.status, 200, `stream ${i}: ${res.status}`);
        assert.match(await res.text(), /event: end|event: values/);
      }
    } finally {
      await server.close();
    }
  });
});
