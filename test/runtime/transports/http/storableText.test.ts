// Text no store can keep (a NUL, a lone surrogate) is refused at the door, on both backends
// alike: a 422 naming the field, nothing stored. On PostgreSQL a NUL in a run's input was
// accepted and then failed the claim of every run (issue 84); in thread metadata or an
// assistant's name it answered 500 there while the embedded store took it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { storableCopy, unstorableText } from '../../../../src/runtime/transports/http/storableText.ts';
import { inProcessApp, type InProcessApp } from '../../../support/server.ts';
import { BACKENDS } from '../../../support/bothStores.ts';
import { migratedDatabaseUrl } from '../../../support/postgres.ts';

const NUL = 'before\u0000after';
const LONE = 'half \ud800 a pair';

describe('unstorableText', () => {
  test('names the first string or key holding a NUL or a lone surrogate, and nothing else', () => {
    assert.deepEqual(unstorableText({ a: [1, { b: NUL }] }, ['body'])?.loc, ['body', 'a', 1, 'b']);
    assert.deepEqual(unstorableText({ [`k${NUL}`]: 1 }, ['body'])?.loc, ['body', `k${NUL}`]);
    assert.match(unstorableText([LONE], ['body'])!.msg, /surrogate/);
    assert.match(unstorableText('\udc00', ['q'])!.msg, /surrogate/);
    assert.equal(unstorableText({ emoji: '😀 \ud83d\ude00', text: 'é\u0001\uFFFF', n: 1e308 }, ['body']), undefined);
  });

  test('a flat object of strings (a path, a query) is answered as any other value: pairs kept, a NUL or a lone surrogate named in a key or a value', () => {
    assert.equal(unstorableText({ thread_id: 'a-b', q: '😀', '😀': 'x' }, ['path']), undefined);
    assert.deepEqual(unstorableText({ a: 'ok', b: NUL }, ['query'])?.loc, ['query', 'b']);
    assert.deepEqual(unstorableText({ a: 'ok', [LONE]: 'x' }, ['query'])?.loc, ['query', LONE]);
    assert.match(unstorableText({ a: '\udc00x' }, ['path'])!.msg, /surrogate/);
    assert.deepEqual(unstorableText({ a: 'ok', b: ['x', NUL] }, ['query'])?.loc, ['query', 'b', 1]);
    // an inherited key is not the client's: neither path looks at it
    assert.equal(unstorableText(Object.create({ inherited: NUL }), ['query']), undefined);
    assert.equal(unstorableText({}, ['path']), undefined);
  });

  test('storableCopy replaces each NUL and lone surrogate with U+FFFD, keys too', () => {
    assert.deepEqual(storableCopy({ [`k\u0000`]: [NUL, LONE, '😀'] }), { 'k\uFFFD': ['before\uFFFDafter', 'half \uFFFD a pair', '😀'] });
  });
});

for (const backend of BACKENDS) {
  describe(`unstorable text at the door (${backend})`, () => {
    let app: InProcessApp;
    before(async () => {
      app = await inProcessApp({ dataDir: null, env: backend === 'postgres' ? { DATABASE_URL: await migratedDatabaseUrl() } : {} });
    });
    after(() => app?.close());

    const send = async (method: string, path: string, json: unknown) => {
      const res = await app.api(path, { method, json });
      return { status: res.status, body: (await res.json()) as any };
    };

    /** A 422 whose detail names `loc` as text that cannot be stored. */
    async function refused(method: string, path: string, json: unknown, loc: (string | number)[]) {
      const { status, body } = await send(method, path, json);
      assert.equal(status, 422, `${method} ${path}: ${JSON.stringify(body)}`);
      const item = (body.detail as { loc: unknown[]; type: string }[]).find((i) => i.type === 'string_unstorable');
      assert.deepEqual(item?.loc, loc, JSON.stringify(body));
    }

    const input = (content: string) => ({ messages: [{ role: 'user', content }] });

    test('every place a client puts text answers 422 naming the field, and nothing is stored', async () => {
      const thread = (await send('POST', '/threads', {})).body.thread_id as string;
      await refused('POST', '/threads', { metadata: { note: NUL } }, ['body', 'metadata', 'note']);
      await refused('POST', '/threads', { metadata: { [NUL]: 1 } }, ['body', 'metadata', NUL]);
      await refused('PATCH', `/threads/${thread}`, { metadata: { note: LONE } }, ['body', 'metadata', 'note']);
      await refused('POST', '/assistants', { graph_id: 'echo', name: NUL }, ['body', 'name']);
      await refused('POST', '/assistants', { graph_id: 'echo', config: { configurable: { x: NUL } } }, ['body', 'config', 'configurable', 'x']);
      await refused('PUT', '/store/items', { namespace: ['a'], key: 'k', value: { v: NUL } }, ['body', 'value', 'v']);
      await refused('PUT', '/store/items', { namespace: [NUL], key: 'k', value: {} }, ['body', 'namespace', 0]);
      await refused('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'echo', input: input(NUL) }, ['body', 'input', 'messages', 0, 'content']);
      await refused('POST', `/threads/${thread}/runs`, { assistant_id: 'echo', command: { resume: LONE } }, ['body', 'command', 'resume']);
      await refused('POST', '/runs/wait', { assistant_id: 'echo', input: input('x'), context: { who: NUL } }, ['body', 'context', 'who']);
      await refused('POST', '/runs/wait', { assistant_id: 'echo', input: input('x'), metadata: { who: NUL } }, ['body', 'metadata', 'who']);
      await refused('POST', `/threads/${thread}/state`, { values: input(NUL), as_node: 'echo' }, ['body', 'values', 'messages', 0, 'content']);
      await refused('POST', `/threads/${thread}/state`, { values: {}, as_node: NUL }, ['body', 'as_node']);
      await refused('POST', '/runs/crons', { assistant_id: 'echo', schedule: '0 0 * * *', input: input(NUL) }, ['body', 'input', 'messages', 0, 'content']);
      await refused('GET', `/store/items?namespace=a&key=${encodeURIComponent(NUL)}`, undefined, ['query', 'key']);
      await refused('POST', '/v2/deployments', { name: NUL }, ['body', 'name']);

      // nothing of them was kept
      assert.equal((await send('POST', '/threads/search', {})).body.length, 1);
      assert.deepEqual((await send('GET', `/threads/${thread}`, undefined)).body.metadata, {});
      assert.equal((await send('POST', '/store/items/search', {})).body.items.length, 0);
      assert.equal((await send('POST', '/runs/crons/search', {})).body.length, 0);
      assert.equal((await send('GET', `/threads/${thread}/runs`, undefined)).body.length, 0);
      const names = ((await send('POST', '/assistants/search', {})).body as { name: string }[]).map((a) => a.name);
      assert.ok(!names.some((n) => n.includes('\u0000')));
    });

    test('an A2A message holding a NUL is invalid params', async () => {
      const res = await app.api('/a2a/echo', {
        method: 'POST',
        json: {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', role: 'user', messageId: 'm', parts: [{ kind: 'text', text: NUL }] } },
        },
      });
      const body = (await res.json()) as { error?: { code: number; message: string } };
      assert.equal(body.error?.code, -32602, JSON.stringify(body));
      assert.match(body.error!.message, /NUL/);
    });

    test('after a NUL run is refused, a plain runs/wait of another thread completes', async () => {
      const first = (await send('POST', '/threads', {})).body.thread_id as string;
      await refused('POST', `/threads/${first}/runs`, { assistant_id: 'echo', input: input(NUL) }, ['body', 'input', 'messages', 0, 'content']);
      const other = (await send('POST', '/threads', {})).body.thread_id as string;
      const { status, body } = await send('POST', `/threads/${other}/runs/wait`, { assistant_id: 'echo', input: input('plain') });
      assert.equal(status, 200);
      assert.equal(body.messages.at(-1).content, 'plain');
    });

    test('a run delayed past what a timestamp can hold waits, and the runs after it run', async () => {
      const delayed = await send('POST', '/runs', { assistant_id: 'echo', input: input('later'), after_seconds: 1e300 });
      assert.equal(delayed.status, 200);
      const { status, body } = await send('POST', '/runs/wait', { assistant_id: 'echo', input: input('now') });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.messages.at(-1).content, 'now');
      assert.equal((await send('GET', `/threads/${delayed.body.thread_id}/runs/${delayed.body.run_id}`, undefined)).body.status, 'pending');
    });
  });
}
