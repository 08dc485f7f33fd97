// Concurrency on the A2A JSON-RPC endpoint: a call answered once (SendMessage, message/send) is
// not a stream and takes no stream slot, however many of one client's are in flight; a
// streaming call over the caps is refused as a JSON-RPC error, not an HTTP 429.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { fixtureGraphs } from './harness.ts';
import { rpcV1 } from './v1harness.ts';

const CALLS = 200;

let app: InProcessApp;
/** An app whose client may hold 2 streams. */
let capped: InProcessApp;

before(async () => {
  app = await areaApp('a2a', { project: { graphs: fixtureGraphs } });
  capped = await areaApp('a2a', { project: { graphs: fixtureGraphs }, env: { AGENTPLANE_MAX_STREAMS_PER_CLIENT: '2' } });
});
after(async () => {
  await app.close();
  await capped.close();
});

const v1Text = (text: string) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
const v03Text = (text: string) => ({ message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } });

describe('calls answered once are not streams', () => {
  test(`${CALLS} concurrent SendMessage (v1.0) from one client all complete under the default limits`, async () => {
    const answers = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => rpcV1(`${app.url}/a2a/echo`, 'SendMessage', v1Text(`n${i}`), { id: i, send: app.fetch })),
    );
    const failed = answers.filter((a) => a.status !== 200 || a.json?.error);
    assert.deepEqual(
      failed.map((a) => a.text.slice(0, 200)),
      [],
    );
    for (const [i, a] of answers.entries()) {
      assert.equal(a.json.id, i);
      assert.equal(a.json.result.task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(a.json.result.task.artifacts[0].parts[0].text, `echo: n${i}`);
    }
  });

  test(`${CALLS} concurrent message/send (0.3) from one client all complete under the default limits`, async () => {
    const answers = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => rpcV1(`${app.url}/a2a/echo`, 'message/send', v03Text(`n${i}`), { version: null, id: i, send: app.fetch })),
    );
    const failed = answers.filter((a) => a.status !== 200 || a.json?.error);
    assert.deepEqual(
      failed.map((a) => a.text.slice(0, 200)),
      [],
    );
    for (const [i, a] of answers.entries()) assert.equal(a.json.result.status.state, 'completed', `call ${i}`);
  });

  test('blocking sends past the stream cap all complete: a waiting call holds no stream slot', async () => {
    // 2 streams allowed: 5 sends that each wait for a run would have been refused from the third
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => rpcV1(`${capped.url}/a2a/echo`, 'SendMessage', v1Text(`c${i}`), { id: i, send: capped.fetch })),
    );
    assert.deepEqual(
      answers.map((a) => a.json?.result?.task?.status?.state),
      Array(5).fill('TASK_STATE_COMPLETED'),
    );
  });
});

describe('a streaming call over the cap is a JSON-RPC error', () => {
  /** Opens a stream of the slow graph (it runs until canceled) and reads until its first event. */
  async function openStream(method: string, params: unknown, version: string | null): Promise<{ res: Response; abort: AbortController }> {
    const abort = new AbortController();
    const res = await capped.fetch(`${capped.url}/a2a/slow`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(version ? { 'A2A-Version': version } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'open', method, params }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const reader = res.body!.getReader();
    await reader.read();
    reader.releaseLock();
    return { res, abort };
  }

  /** The -32000 error's documented shape: ErrorInfo (RESOURCE_EXHAUSTED, agentplane, the cap) and RetryInfo. */
  function assertTooManyStreams(error: any): void {
    assert.equal(error?.code, -32000, JSON.stringify(error));
    assert.match(error.message, /Too many open streams for this client \(2, AGENTPLANE_MAX_STREAMS_PER_CLIENT\)/);
    assert.deepEqual(error.data, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RESOURCE_EXHAUSTED',
        domain: 'agentplane',
        metadata: { limit: '2', setting: 'AGENTPLANE_MAX_STREAMS_PER_CLIENT' },
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '5s' },
    ]);
  }

  test('v1.0 SendStreamingMessage: a plain JSON-RPC error in HTTP 200; a send answered once still goes through; a slot freed is taken again', async () => {
    const open = [await openStream('SendStreamingMessage', v1Text('a'), '1.0'), await openStream('SendStreamingMessage', v1Text('b'), '1.0')];
    const refused = await rpcV1(`${capped.url}/a2a/slow`, 'SendStreamingMessage', v1Text('c'), { id: 7, send: capped.fetch });
    assert.equal(refused.status, 200);
    assert.equal(refused.json.id, 7);
    assertTooManyStreams(refused.json.error);
    // a call answered once is not refused by the streams the client holds
    const sent = await rpcV1(`${capped.url}/a2a/echo`, 'SendMessage', v1Text('d'), { send: capped.fetch });
    assert.equal(sent.json.result.task.status.state, 'TASK_STATE_COMPLETED');
    open[0].abort.abort();
    await open[0].res.body?.cancel().catch(() => undefined);
    // the slot comes back once the first stream's reply has closed
    let reopened = false;
    for (let i = 0; i < 50 && !reopened; i += 1) {
      // the echo graph's stream runs to its end: an answer that is no JSON error is the stream
      const tried = await rpcV1(`${capped.url}/a2a/echo`, 'SendStreamingMessage', v1Text('e'), { send: capped.fetch });
      reopened = tried.json?.error === undefined;
      if (!reopened) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(reopened, 'a stream opens again once one has closed');
    open[1].abort.abort();
    await open[1].res.body?.cancel().catch(() => undefined);
  });

  test('0.3 message/stream: the error is the stream’s one event, as its other early errors are', async () => {
    const open = [await openStream('message/stream', v03Text('a'), null), await openStream('message/stream', v03Text('b'), null)];
    const res = await capped.fetch(`${capped.url}/a2a/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'message/stream', params: v03Text('c') }),
    });
    assert.equal(res.status, 200);
    const events = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    assert.equal(events.length, 1);
    assert.equal(events[0].id, 9);
    assertTooManyStreams(events[0].error);
    for (const stream of open) {
      stream.abort.abort();
      await stream.res.body?.cancel().catch(() => undefined);
    }
  });
});
