// A run whose input the graph's reducers refuse (issue 84): it fails as a run, and every read
// of its thread answers after it, on the embedded store and on PostgreSQL. LangGraph computes a
// thread's latest state by applying the pending writes of its latest step, which the failed
// run left refused; the thread's record and its search answer the values stored at its last
// change (ThreadRecord.values) and never compute a state, and `/state` answers the last good
// checkpoint with the refused task's error (ThreadStateReader.latest).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { migratedDatabaseUrl } from '../../../support/postgres.ts';
import { BACKENDS } from '../../../support/bothStores.ts';

const project = {
  graphs: {
    agent: './examples/graphs/agent.ts:agent',
    echo: './examples/graphs/echo.ts:echo',
    refusing: './test/fixtures/agent-server/graphs.ts:refusingFactory',
  },
};

/** The three inputs of the issue, each with what LangChain's messages reducer says of it. */
const REFUSED = [
  { name: 'a message of an unknown role', message: { role: 'bogus', content: 'hi' }, error: /Unable to coerce message/ },
  { name: 'a tool message without tool_call_id', message: { role: 'tool', content: 'x' }, error: /Unable to coerce message/ },
  {
    name: 'a removal of a message that is not there',
    message: { type: 'remove', id: 'nope' },
    error: /delete a message with an ID that doesn't exist \('nope'\)/,
  },
];

type Json = Record<string, any>;

for (const backend of BACKENDS) {
  describe(`a run whose input the reducers refuse, on the ${backend} store`, () => {
    let app: InProcessApp;
    before(async () => {
      const env: Record<string, string> = backend === 'postgres' ? { DATABASE_URL: await migratedDatabaseUrl() } : {};
      app = await areaApp('agent-server', { project, env, dataDir: backend === 'postgres' ? 'temp' : null });
    });
    after(() => app.close());

    const json = async (pathname: string, init?: RequestInit & { json?: unknown }): Promise<Json> => {
      const res = await app.api(pathname, init);
      const text = await res.text();
      assert.equal(res.status, 200, `${init?.method ?? 'GET'} ${pathname}: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    const say = (content: string) => ({ messages: [{ role: 'user', content }] });
    const wait = (threadId: string, body: Json) => json(`/threads/${threadId}/runs/wait`, { method: 'POST', json: { assistant_id: 'agent', ...body } });

    for (const input of REFUSED) {
      it(`${input.name}: the run fails, and thread, state, history, search and runs answer 200`, async () => {
        const { thread_id: threadId } = await json('/threads', { method: 'POST', json: { metadata: { case: input.name } } });
        const good = await wait(threadId, { input: say('first') });
        const answer = await wait(threadId, { input: { messages: [input.message] } });
        assert.match(answer.__error__?.message, input.error, 'the wait answers the error in the documented shape');
        assert.equal(typeof answer.__error__.error, 'string');

        const runs = (await json(`/threads/${threadId}/runs`)) as unknown as Json[];
        assert.deepEqual(
          runs.map((r) => r.status),
          ['error', 'success'],
        );
        const failed = await json(`/threads/${threadId}/runs/${runs[0].run_id}/join`);
        assert.match(failed.__error__?.message, input.error);

        const thread = await json(`/threads/${threadId}`);
        assert.equal(thread.status, 'error');
        assert.deepEqual(thread.values, good, "the thread shows the last good values, the first run's");

        const state = await json(`/threads/${threadId}/state`);
        assert.deepEqual(state.values, good, 'the state is the last good checkpoint');
        assert.equal(state.state_error, undefined, 'the last good checkpoint could be read');
        const refused = state.tasks.filter((t: Json) => t.error !== null);
        assert.equal(refused.length, 1, JSON.stringify(state.tasks));
        assert.match(refused[0].error, input.error, 'the refused task carries the reducer error');
        assert.deepEqual(state.next, [refused[0].name]);

        const history = (await json(`/threads/${threadId}/history`)) as unknown as Json[];
        assert.deepEqual(history[0].values, good);
        assert.deepEqual((await json(`/threads/${threadId}/history`, { method: 'POST', json: { limit: 2 } })).length, 2);

        const found = (await json('/threads/search', { method: 'POST', json: {} })) as unknown as Json[];
        assert.ok(
          found.some((t) => t.thread_id === threadId && t.status === 'error'),
          'a search of every thread finds it',
        );
        const byValues = (await json('/threads/search', {
          method: 'POST',
          json: { values: { messages: good.messages }, metadata: { case: input.name } },
        })) as unknown as Json[];
        assert.deepEqual(
          byValues.map((t) => t.thread_id),
          [threadId],
          'a search by values reads the stored values',
        );
        assert.equal(await json('/threads/count', { method: 'POST', json: { metadata: { case: input.name } } }), 1);

        // the thread takes the next run: the refused writes stay where they were
        const next = await wait(threadId, { input: say('again') });
        assert.equal(next.messages.at(-1).content, 'Your message has 1 words.', JSON.stringify(next.messages.at(-1)));
        const after = await json(`/threads/${threadId}`);
        assert.equal(after.status, 'idle');
        assert.deepEqual(after.values, next);
      });
    }

    it('a refused command, then a run of a plain graph: the merged history answers each checkpoint as saved', async () => {
      const { thread_id: threadId } = await json('/threads', { method: 'POST', json: {} });
      const refused = await wait(threadId, { durability: 'exit', command: { update: { messages: [{ type: 'remove', id: '' }] } } });
      const refusal = /delete a message with an ID that doesn't exist/;
      assert.match(refused.__error__?.message, refusal, JSON.stringify(refused));
      await json(`/threads/${threadId}/runs/wait`, { method: 'POST', json: { assistant_id: 'echo', input: say('hello') } });
      const history = (await json(`/threads/${threadId}/history`, { method: 'POST', json: {} })) as unknown as Json[];
      // the echo run's two checkpoints, then the refused command's, as saved (its input not applied) and why
      assert.deepEqual(
        history.map((s) => s.state_error),
        [undefined, undefined, history[2].state_error],
        JSON.stringify(history),
      );
      assert.match(history[2].state_error, refusal);
      assert.deepEqual(history[2].values, { messages: [] });
      assert.deepEqual(await json(`/threads/${threadId}/history`), history);
    });

    it('a thread stored before its record kept values shows them, computed once, and its next run stores them', async () => {
      const { thread_id: threadId } = await json('/threads', { method: 'POST', json: {} });
      const good = await wait(threadId, { input: say('first') });
      // the record as a server before this field wrote it
      await app.store.collection<Json>('threads').update(threadId, ({ values: _, ...older }) => older);
      assert.equal('values' in ((await app.store.collection<Json>('threads').get(threadId)) ?? {}), false);
      assert.deepEqual((await json(`/threads/${threadId}`)).values, good);
      const found = (await json('/threads/search', { method: 'POST', json: { ids: [threadId] } })) as unknown as Json[];
      assert.deepEqual(found[0].values, good);
      const next = await wait(threadId, { input: say('again') });
      // as JSON: the embedded store holds the run's values as they were made (a message's unset fields undefined)
      const stored = (await app.store.collection<Json>('threads').get(threadId))?.values;
      assert.deepEqual(JSON.parse(JSON.stringify(stored)), next);
    });

    it('a state no checkpoint can give (its graph no longer loads) answers the stored values and why', async () => {
      const { thread_id: threadId } = await json('/threads', { method: 'POST', json: {} });
      const good = await json(`/threads/${threadId}/runs/wait`, { method: 'POST', json: { assistant_id: 'refusing', input: say('first') } });
      assert.ok(Array.isArray(good.messages) && good.messages.length > 0, JSON.stringify(good));
      // the thread's config now makes its graph refuse to load: the run fails, and so would a state read
      const failed = await json(`/threads/${threadId}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: 'refusing', input: say('two'), config: { configurable: { refuse_graph: true } } },
      });
      assert.match(failed.__error__?.message, /refuses to make the graph/, JSON.stringify(failed).slice(0, 500));
      const state = await json(`/threads/${threadId}/state`);
      assert.match(state.state_error, /refuses to make the graph/, JSON.stringify(state).slice(0, 800));
      assert.deepEqual(state.values, good);
      assert.deepEqual([state.next, state.tasks, state.checkpoint], [[], [], null]);
      const thread = await json(`/threads/${threadId}`);
      assert.deepEqual([thread.status, thread.values], ['error', good]);
      const found = (await json('/threads/search', { method: 'POST', json: { ids: [threadId] } })) as unknown as Json[];
      assert.deepEqual(found[0].values, good);
    });
  });
}
