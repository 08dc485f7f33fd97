// Query strings as the server reads them: an empty value (or name) is absent (the spec's
// rule). LangChain's Python SDK (langgraph-sdk 0.4.3) sends every argument left `None` as an
// empty parameter: `runs.join_stream(thread_id, run_id)` asks
// `…/stream?cancel_on_disconnect=false&stream_mode=`, which the upstream server streams.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery } from '../../../../src/runtime/transports/http/requestBody.ts';
import { type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { testProject } from '../../../fixtures/agent-server/project.ts';

describe('parseQuery', () => {
  it('reads an empty value, a bare name and an empty name as absent', () => {
    assert.deepEqual(parseQuery('cancel_on_disconnect=false&stream_mode='), { cancel_on_disconnect: 'false' });
    assert.deepEqual(parseQuery('stream_mode&limit=5'), { limit: '5' });
    assert.deepEqual(parseQuery('=x&&limit=5'), { limit: '5' });
  });

  it('drops the empty values of a repeated name and keeps the others', () => {
    assert.deepEqual(parseQuery('stream_mode=values&stream_mode=&stream_mode=updates'), { stream_mode: ['values', 'updates'] });
    assert.deepEqual(parseQuery('stream_mode=&stream_mode=values'), { stream_mode: 'values' });
  });

  it('keeps a value that is only encoded whitespace or an encoded empty-looking text', () => {
    assert.deepEqual(parseQuery('before=%20&key=%22%22'), { before: ' ', key: '""' });
  });
});

describe('empty query parameters on the wire', () => {
  let app: InProcessApp;
  let threadId: string;
  let runId: string;
  before(async () => {
    app = await areaApp('a2a', { project: testProject, dataDir: null });
    threadId = ((await (await app.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string }).thread_id;
    const run = await app.api(`/threads/${threadId}/runs`, {
      method: 'POST',
      json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] } },
    });
    runId = ((await run.json()) as { run_id: string }).run_id;
  });
  after(() => app.close());

  it("streams the Python SDK's runs.join_stream with default arguments (stream_mode= empty)", async () => {
    // the request line and headers langgraph-sdk 0.4.3 sends (httpx writes None as an empty value)
    const res = await app.fetch(`${app.url}/threads/${threadId}/runs/${runId}/stream?cancel_on_disconnect=false&stream_mode=`, {
      headers: { 'X-Api-Key': app.key, 'User-Agent': 'langgraph-sdk-py/0.4.3', Accept: 'text/event-stream', 'Cache-Control': 'no-store' },
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const text = await res.text();
    assert.match(text, /event: values/, 'the run stream, every mode the run was created with');
  });

  it('reads empty paging and filters as their defaults', async () => {
    const runs = await app.api(`/threads/${threadId}/runs?limit=&offset=&status=&select=`);
    assert.equal(runs.status, 200, await runs.clone().text());
    const listed = (await runs.json()) as { run_id: string; kwargs?: unknown }[];
    assert.deepEqual(
      listed.map((r) => r.run_id),
      [runId],
    );
    assert.ok(listed[0].kwargs, 'every field: no selection');
    const history = await app.api(`/threads/${threadId}/history?limit=&before=`);
    assert.equal(history.status, 200, await history.clone().text());
  });

  it('still refuses a value that is there and wrong', async () => {
    const res = await app.api(`/threads/${threadId}/runs?limit=0`);
    assert.equal(res.status, 422);
    // one value asked twice is a list where the operation reads one: the agent card's only 422
    const card = await app.api('/.well-known/agent-card.json?assistant_id=echo&assistant_id=agent');
    assert.equal(card.status, 422);
    assert.equal(((await card.json()) as { detail: { loc: string[] }[] }).detail[0].loc.join('.'), 'query.assistant_id');
    assert.equal((await app.api('/.well-known/agent-card.json?assistant_id=&assistant_id=echo')).status, 200);
  });
});
