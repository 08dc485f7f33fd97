// A server stopping (SIGTERM, a pod's rollout) while clients hold streams: a stream never
// finishes by itself, so the stop ends it at once (its client resumes from the last event it
// got), tells each protocol WebSocket the server is going away (1001), and marks a request
// that arrives on a kept-alive connection meanwhile as that connection's last. Before, an open
// WebSocket held the stop until the process was killed, and an open stream cost 5 s of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { startTestServer } from '../support/server.ts';
import { testProject } from '../fixtures/agent-server/project.ts';

const STOP_BOUND_MS = 3_000; // the stop's grace for ordinary requests is 5 s; nothing here needs it

test('a stop ends open streams at once and tells WebSockets the server is going away', { timeout: 20_000 }, async () => {
  const server = await startTestServer({ dataDir: null, project: testProject });
  let closed = false;
  try {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    // a protocol v2 event stream over SSE, read as it comes
    const stream = await server.api(`/threads/${thread.thread_id}/stream/events`, { method: 'POST', json: { channels: ['lifecycle'] } });
    assert.equal(stream.status, 200);
    const streamEnded = stream.text().then(
      () => 'ended',
      () => 'cut',
    );
    // the same thread's events over the protocol's WebSocket
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/threads/${thread.thread_id}/stream/events`, { headers: { 'x-api-key': server.key } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const subscribed = new Promise((resolve) => ws.once('message', resolve));
    ws.send(JSON.stringify({ id: 1, method: 'subscription.subscribe', params: { channels: ['lifecycle'] } }));
    await subscribed;
    const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    // a kept-alive connection with a request already answered on it, and a run waited for on it
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const call = (method: string, pathname: string, body?: unknown) =>
      new Promise<{ status?: number; connection?: string }>((resolve, reject) => {
        const req = http.request(
          `${server.url}${pathname}`,
          { method, agent, headers: { 'x-api-key': server.key, 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            res.once('end', () => resolve({ status: res.statusCode, connection: res.headers.connection }));
          },
        );
        req.once('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    assert.equal((await call('GET', '/ok')).connection, 'keep-alive');
    const waited = call('POST', '/runs/wait', { assistant_id: 'slow', input: { messages: [{ role: 'user', content: 'hi' }] }, context: { delay_ms: 500 } });
    await new Promise((resolve) => setTimeout(resolve, 100));

    const started = performance.now();
    await server.close();
    closed = true;
    const took = performance.now() - started;
    assert.ok(took < STOP_BOUND_MS, `the stop took ${Math.round(took)} ms with a stream and a WebSocket open`);
    assert.equal(await streamEnded, 'ended', 'the stream ended cleanly');
    assert.equal(await wsClosed, 1001);
    assert.deepEqual(await waited, { status: 200, connection: 'close' }, 'a request answered during the stop is its connection’s last');
    agent.destroy();
  } finally {
    if (!closed) await server.close();
  }
});
