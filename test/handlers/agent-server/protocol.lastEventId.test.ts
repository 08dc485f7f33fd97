// The protocol's thread stream resumed with `Last-Event-ID`, as run streams are (issue 90: it
// was ignored, and a reconnecting SSE client was sent the thread's events again from 1).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { api, events, rootEnd } from '../../support/protocolEvents.ts';

const ALL = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input'];

describe('protocol v2: Last-Event-ID on the thread stream', () => {
  let server: InProcessApp;
  let threadId: string;
  let all: { seq: number }[];
  const stream = (body: Record<string, unknown>, lastEventId?: string) =>
    server.fetch(`${server.url}/threads/${threadId}/stream/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': server.key, ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }) },
      body: JSON.stringify(body),
    });
  before(async () => {
    server = await areaApp('agent-server', { project: { graphs: { echo: './examples/graphs/echo.ts:echo' } }, dataDir: null, runWorkers: '0' });
    threadId = randomUUID();
    const post = api(server, server.key);
    await post(`/threads/${threadId}/commands`, {
      id: 1,
      method: 'run.start',
      params: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] } },
    });
    all = await events(await stream({ channels: ALL }), rootEnd);
    assert.ok(all.length > 6, `${all.length} events`);
  });
  after(() => server.close());

  it('resumes after the event it names', async () => {
    const resumed = await events(await stream({ channels: ALL }, '3'), rootEnd);
    assert.deepEqual(resumed, all.slice(3));
  });

  it('with since as well, after the later of the two', async () => {
    assert.deepEqual(await events(await stream({ channels: ALL, since: 5 }, '3'), rootEnd), all.slice(5));
    assert.deepEqual(await events(await stream({ channels: ALL, since: 2 }, '4'), rootEnd), all.slice(4));
  });

  it('an id that is not an event number is refused (422), the stream not opened', async () => {
    for (const bad of ['abc', '-1', '1.5', `${threadId}:3`]) {
      const res = await stream({ channels: ALL }, bad);
      assert.equal(res.status, 422, bad);
      const body = (await res.json()) as { detail: { loc: string[] }[] };
      assert.deepEqual(body.detail[0].loc, ['header', 'last-event-id']);
    }
  });
});
