// Search filters compare own properties only: a metadata filter of {"__proto__": {}} matches
// no thread (it used to match every thread through the object prototype).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

describe('search filters', () => {
  let server: InProcessApp;
  before(async () => {
    server = await areaApp('agent-server', { project: testProject });
  });
  after(() => server.close());

  it('a __proto__ key in a metadata filter matches nothing', async () => {
    await server.api('/threads', { method: 'POST', json: { metadata: { user: 'alice' } } });
    const body = '{"metadata": {"__proto__": {}}, "limit": 100}';
    const threads = await (
      await server.fetch(`${server.url}/threads/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    ).json();
    assert.deepEqual(threads, []);
    const assistants = await (
      await server.fetch(`${server.url}/assistants/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    ).json();
    assert.deepEqual(assistants, []);
    const real = await (
      await server.fetch(`${server.url}/threads/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"metadata": {"user": "alice"}}',
      })
    ).json();
    assert.equal((real as unknown[]).length, 1);
  });
});
