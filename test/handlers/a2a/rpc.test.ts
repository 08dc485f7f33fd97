// A2A end to end: the a2a-js client (and raw JSON-RPC where a client cannot go) against a
// running agent server (fixture graphs in test/fixtures/graphs/a2a.ts). Every result received is validated against spec/a2a.openrpc.json.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { A2AClient } from '@a2a-js/sdk/client';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { assertValidResult, clientFor, errorCode, fixtureGraphs, rpc as rpcOver, sseFrames, userText } from './harness.ts';

let server: InProcessApp;
let echo: A2AClient;
let slow: A2AClient;

before(async () => {
  server = await areaApp('a2a', { project: { graphs: fixtureGraphs } });
  echo = await clientFor(server.url, 'echo', server.fetch);
  slow = await clientFor(server.url, 'slow', server.fetch);
});
after(() => server.close());

/** A raw JSON-RPC call to the app. */
const rpc = (url: string, body: unknown, headers: Record<string, string> = {}) => rpcOver(url, body, headers, server.fetch);

const ok = <T>(method: string, response: any): T => {
  assert.ok(!('error' in response), `unexpected error ${JSON.stringify(response.error)}`);
  assertValidResult(method, response.result);
  return response.result as T;
};

describe('message/send', () => {
  test('a first message mints contextId and task id and returns the completed task with the reply', async () => {
    const task: any = ok('message/send', await echo.sendMessage(userText('hello')));
    assert.equal(task.kind, 'task');
    assert.match(task.contextId, /^[0-9a-f-]{36}$/);
    assert.match(task.id, /^[0-9a-f-]{36}$/);
    assert.equal(task.status.state, 'completed');
    assert.deepEqual(task.artifacts[0].parts, [{ kind: 'text', text: 'echo: hello' }]);
    assert.deepEqual(task.status.message.parts, [{ kind: 'text', text: 'echo: hello' }]);
    assert.equal(task.status.message.role, 'agent');
  });

  test('a follow-up with contextId and taskId continues the same task and conversation', async () => {
    const first: any = ok('message/send', await echo.sendMessage(userText('one')));
    const second: any = ok('message/send', await echo.sendMessage(userText('two', { contextId: first.contextId, taskId: first.id })));
    assert.equal(second.id, first.id);
    assert.equal(second.contextId, first.contextId);
    assert.equal(second.artifacts[0].parts[0].text, 'echo: two');
    assert.deepEqual(
      second.history.map((m: any) => [m.role, m.parts[0].text]),
      [
        ['user', 'one'],
        ['agent', 'echo: one'],
        ['user', 'two'],
        ['agent', 'echo: two'],
      ],
    );
  });

  test("history keeps the client's messageIds, and the reply has one id in history and in status.message", async () => {
    const one = userText('one');
    const first: any = ok('message/send', await echo.sendMessage(one));
    const two = userText('two', { contextId: first.contextId, taskId: first.id });
    const second: any = ok('message/send', await echo.sendMessage(two));
    const [u1, a1, u2, a2] = second.history;
    assert.equal(u1.messageId, one.message.messageId);
    assert.equal(u2.messageId, two.message.messageId);
    assert.equal(a2.messageId, second.status.message.messageId, 'the reply is one message with one id');
    assert.equal(a1.messageId, first.status.message.messageId);
    assert.equal(new Set(second.history.map((m: any) => m.messageId)).size, 4);
    // and through tasks/get, the same ids
    const got: any = ok('tasks/get', await echo.getTask({ id: first.id }));
    assert.deepEqual(
      got.history.map((m: any) => m.messageId),
      second.history.map((m: any) => m.messageId),
    );
  });

  test('a message with only contextId starts a new task on that thread', async () => {
    const first: any = ok('message/send', await echo.sendMessage(userText('a')));
    const second: any = ok('message/send', await echo.sendMessage(userText('b', { contextId: first.contextId })));
    assert.notEqual(second.id, first.id);
    assert.equal(second.contextId, first.contextId);
    assert.equal(second.history.length, 4);
  });

  test('configuration.historyLength limits the history', async () => {
    const task: any = ok('message/send', await echo.sendMessage({ ...userText('x'), configuration: { historyLength: 1 } }));
    assert.equal(task.history.length, 1);
    assert.equal(task.history[0].parts[0].text, 'echo: x');
  });

  test('data parts are merged into the input of a graph without messages', async () => {
    const client = await clientFor(server.url, 'data', server.fetch);
    const res: any = await client.sendMessage({ message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'data', data: { n: 2 } }] } });
    const task: any = ok('message/send', res);
    assert.equal(task.status.state, 'completed');
    assert.deepEqual(task.artifacts[0].parts[0], { kind: 'data', data: { n: 2, seen: true } });
  });

  test('a run that fails gives a failed task with an agent status message', async () => {
    const client = await clientFor(server.url, 'failing', server.fetch);
    const task: any = ok('message/send', await client.sendMessage(userText('boom')));
    assert.equal(task.status.state, 'failed');
    assert.equal(task.status.message.role, 'agent');
    assert.match(task.status.message.parts[0].text, /this graph always fails/);
    assert.equal(task.artifacts, undefined);
  });

  test('bad messages are refused with the A2A error codes', async () => {
    const cases: [unknown, number][] = [
      // a file is taken (messages.files.test.ts), but its URL must be one
      [{ message: { kind: 'message', role: 'user', messageId: 'f', parts: [{ kind: 'file', file: { uri: 'y.pdf' } }] } }, -32602],
      // a contextId that names another context than the task's own (any string names a context: rpc.contextId.test.ts)
      [userText('hi', { contextId: 'not-the-task-context', taskId: crypto.randomUUID() }), -32001],
      [userText('hi', { taskId: crypto.randomUUID() }), -32001],
      [{ ...userText('hi'), configuration: { pushNotificationConfig: { url: 'https://x' } } }, -32003],
    ];
    for (const [params, code] of cases) {
      const res: any = await echo.sendMessage(params as never);
      assert.equal(errorCode(res), code, JSON.stringify(params));
    }
  });

  test('text sent to an assistant whose state has no messages is -32602 with a clear message', async () => {
    const client = await clientFor(server.url, 'data', server.fetch);
    const res: any = await client.sendMessage(userText('hi'));
    assert.equal(errorCode(res), -32602);
    assert.match(res.error.message, /no 'messages' key/);
  });
});

describe('message/stream', () => {
  test('streams submitted, working, the artifact and a final completed status', async () => {
    const events: any[] = [];
    for await (const event of echo.sendMessageStream(userText('stream me'))) {
      assertValidResult('message/stream', event);
      events.push(event);
    }
    assert.equal(events[0].kind, 'task');
    assert.equal(events[0].status.state, 'submitted');
    assert.ok(events.some((e) => e.kind === 'status-update' && e.status.state === 'working' && !e.final));
    const artifact = events.find((e) => e.kind === 'artifact-update');
    assert.deepEqual(artifact.artifact.parts, [{ kind: 'text', text: 'echo: stream me' }]);
    const last = events.at(-1);
    assert.equal(last.kind, 'status-update');
    assert.equal(last.final, true);
    assert.equal(last.status.state, 'completed');
    assert.ok(events.every((e) => (e.taskId ?? e.id) === events[0].id && e.contextId === events[0].contextId));
  });

  test('the reply has one id: in the working updates, the final status.message and the task history', async () => {
    const sent = userText('one id please');
    const events: any[] = [];
    for await (const event of echo.sendMessageStream(sent)) events.push(event);
    const replyIds = new Set(events.filter((e) => e.kind === 'status-update' && e.status.message).map((e) => e.status.message.messageId));
    assert.equal(replyIds.size, 1, JSON.stringify(events));
    const [replyId] = replyIds;
    const task: any = ok('tasks/get', await echo.getTask({ id: events[0].id }));
    assert.equal(task.status.message.messageId, replyId);
    assert.deepEqual(
      task.history.map((m: any) => [m.role, m.messageId]),
      [
        ['user', sent.message.messageId],
        ['agent', replyId],
      ],
    );
  });

  test('every frame is a JSON-RPC response echoing a string id, and the stream ends after final', async () => {
    const res = await server.fetch(`${server.url}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'stream-1', method: 'message/stream', params: userText('raw') }),
    });
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = await sseFrames(res);
    for (const frame of frames) {
      assert.deepEqual([frame.jsonrpc, frame.id], ['2.0', 'stream-1']);
      assertValidResult('message/stream', frame.result);
    }
    const kinds = frames.map((f) => f.result.kind);
    assert.equal(kinds[0], 'task');
    assert.deepEqual(kinds.slice(-2), ['artifact-update', 'status-update']);
    assert.equal(frames.at(-1).result.final, true);
  });

  test('an error before the first event arrives as one JSON-RPC error frame', async () => {
    await assert.rejects(async () => {
      for await (const _ of echo.sendMessageStream(userText('x', { taskId: crypto.randomUUID() }))) void _;
    }, /-32001/);
  });
});

describe('tasks/get', () => {
  test('finds a task by id alone and honours historyLength', async () => {
    const sent: any = ok('message/send', await echo.sendMessage(userText('remember')));
    const got: any = ok('tasks/get', await echo.getTask({ id: sent.id, historyLength: 1 }));
    assert.equal(got.id, sent.id);
    assert.equal(got.contextId, sent.contextId);
    assert.equal(got.status.state, 'completed');
    assert.equal(got.history.length, 1);
    assert.equal(got.artifacts[0].parts[0].text, 'echo: remember');
  });

  test('unknown, malformed or foreign task ids are -32001', async () => {
    const sent: any = ok('message/send', await echo.sendMessage(userText('mine')));
    for (const params of [{ id: crypto.randomUUID() }, { id: 'garbage' }, { id: sent.id, contextId: crypto.randomUUID() }]) {
      const res: any = await echo.getTask(params as never);
      assert.equal(errorCode(res), -32001, JSON.stringify(params));
    }
    // a task belongs to the endpoint of the assistant it was sent to
    assert.equal(errorCode(await slow.getTask({ id: sent.id })), -32001);
  });
});

describe('tasks/cancel and tasks/resubscribe', () => {
  test('cancels a running task; a canceled or finished task is -32002; unknown is -32001', async () => {
    const started: any = ok('message/send', await slow.sendMessage({ ...userText('wait'), configuration: { blocking: false } }));
    assert.equal(started.status.state, 'submitted');
    const canceled: any = ok('tasks/cancel', await slow.cancelTask({ id: started.id }));
    assert.equal(canceled.status.state, 'canceled');
    assert.equal((ok('tasks/get', await slow.getTask({ id: started.id })) as any).status.state, 'canceled');
    assert.equal(errorCode(await slow.cancelTask({ id: started.id })), -32002);
    const done: any = ok('message/send', await echo.sendMessage(userText('quick')));
    assert.equal(errorCode(await echo.cancelTask({ id: done.id })), -32002);
    assert.equal(errorCode(await echo.cancelTask({ id: 'nope' })), -32001);
  });

  test("a canceled task keeps its history: the client's message, under the client's messageId", async () => {
    const sent = userText('wait for me');
    const started: any = ok('message/send', await slow.sendMessage({ ...sent, configuration: { blocking: false } }));
    const canceled: any = ok('tasks/cancel', await slow.cancelTask({ id: started.id }));
    assert.equal(canceled.status.state, 'canceled');
    for (const task of [canceled, ok('tasks/get', await slow.getTask({ id: started.id })) as any]) {
      const mine = task.history.filter((m: any) => m.messageId === sent.message.messageId);
      assert.equal(mine.length, 1, JSON.stringify(task.history));
      assert.deepEqual(mine[0].parts, sent.message.parts);
      assert.equal(mine[0].role, 'user');
    }
  });

  test("a task canceled while its run is working keeps the client's message in its history", async () => {
    const sent = userText('cancel me mid-run');
    const started: any = ok('message/send', await slow.sendMessage({ ...sent, configuration: { blocking: false } }));
    // wait until the run has started (the graph blocks until canceled), then cancel it
    let state = started.status.state;
    for (let i = 0; i < 250 && state !== 'working'; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      state = (ok('tasks/get', await slow.getTask({ id: started.id })) as any).status.state;
    }
    assert.equal(state, 'working');
    const canceled: any = ok('tasks/cancel', await slow.cancelTask({ id: started.id }));
    assert.equal(canceled.status.state, 'canceled');
    for (const task of [canceled, ok('tasks/get', await slow.getTask({ id: started.id })) as any]) {
      assert.deepEqual(
        task.history.map((m: any) => [m.messageId, m.role, m.parts]),
        [[sent.message.messageId, 'user', sent.message.parts]],
        JSON.stringify(task.history),
      );
    }
  });

  test('resubscribe re-attaches to a running task and sees it end', async () => {
    const started: any = ok('message/send', await slow.sendMessage({ ...userText('wait'), configuration: { blocking: false } }));
    const events: any[] = [];
    const reading = (async () => {
      for await (const event of slow.resubscribeTask({ id: started.id })) {
        assertValidResult('tasks/resubscribe', event);
        events.push(event);
        if (events.length === 1) ok('tasks/cancel', await slow.cancelTask({ id: started.id }));
      }
    })();
    await reading;
    assert.equal(events[0].kind, 'task');
    assert.equal(events[0].id, started.id);
    const last = events.at(-1);
    assert.equal(last.final, true);
    assert.equal(last.status.state, 'canceled');
  });

  test('resubscribing to a finished task is refused', async () => {
    const done: any = ok('message/send', await echo.sendMessage(userText('over')));
    await assert.rejects(async () => {
      for await (const _ of echo.resubscribeTask({ id: done.id })) void _;
    }, /-32602/);
  });
});

describe('JSON-RPC envelope', () => {
  const url = () => `${server.url}/a2a/echo`;

  test('ids are echoed exactly, string or number', async () => {
    for (const id of ['req-1', 7, 0]) {
      const { status, json } = await rpc(url(), { jsonrpc: '2.0', id, method: 'tasks/get', params: { id: 'x' } });
      assert.equal(status, 200);
      assert.deepEqual({ id: json.id, code: errorCode(json) }, { id, code: -32001 });
    }
  });

  test('parse errors, invalid requests, unknown methods and invalid params are errors in HTTP 200', async () => {
    const cases: [unknown, number, unknown][] = [
      ['{not json', -32700, null],
      [[1, 2], -32600, null],
      [{ jsonrpc: '1.0', id: 1, method: 'tasks/get', params: { id: 'x' } }, -32600, 1],
      [{ jsonrpc: '2.0', id: { a: 1 }, method: 'tasks/get' }, -32600, null],
      [{ jsonrpc: '2.0', id: 2 }, -32600, 2],
      [{ jsonrpc: '2.0', id: 3, method: 'tasks/nope' }, -32601, 3],
      [{ jsonrpc: '2.0', method: 'tasks/nope' }, -32601, null],
      [{ jsonrpc: '2.0', id: 4, method: 'tasks/get', params: {} }, -32602, 4],
      [{ jsonrpc: '2.0', id: 5, method: 'message/send', params: { message: { kind: 'message', role: 'user', parts: [] } } }, -32602, 5],
      [{ jsonrpc: '2.0', id: 6, method: 'tasks/get', params: { '': 1, id: 'x' } }, -32602, 6],
    ];
    for (const [body, code, id] of cases) {
      const { status, json } = await rpc(url(), body);
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(json.jsonrpc, '2.0');
      assert.equal(errorCode(json), code, JSON.stringify(body));
      assert.equal(json.id, id, JSON.stringify(body));
    }
  });

  test('A2A has no notifications: a request without id is answered, with id null, valid or not', async () => {
    const contextId = crypto.randomUUID();
    const sent = await rpc(url(), { jsonrpc: '2.0', method: 'message/send', params: userText('note', { contextId }) });
    assert.equal(sent.status, 200);
    assert.equal(sent.json.id, null);
    assertValidResult('message/send', sent.json.result);
    assert.equal(sent.json.result.contextId, contextId);
    // invalid params (the TCK's invalid_request4 case), an unknown task, an unknown method: each its error, id null
    for (const [body, code] of [
      [{ jsonrpc: '2.0', method: 'message/send', params: { message: { kind: 'message' } } }, -32602],
      [{ jsonrpc: '2.0', method: 'tasks/get', params: { id: 'no-such-task' } }, -32001],
      [{ jsonrpc: '2.0', method: 'tasks/nothing', params: {} }, -32601],
    ] as const) {
      const answer = await rpc(url(), body);
      assert.equal(answer.status, 200, JSON.stringify(body));
      assert.equal(errorCode(answer.json), code, JSON.stringify(body));
      assert.equal(answer.json.id, null, JSON.stringify(body));
    }
  });

  test('a streaming request without id and with invalid params gets its error as the one SSE event, id null', async () => {
    for (const method of ['message/stream', 'tasks/resubscribe']) {
      const res = await server.fetch(url(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', method, params: { message: { kind: 'message' } } }),
      });
      assert.equal(res.status, 200, method);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/, method);
      const frames = await sseFrames(res);
      assert.equal(frames.length, 1, method);
      assert.equal(errorCode(frames[0]), -32602, method);
      assert.strictEqual(frames[0].id, null, method);
    }
  });

  test('message/stream with invalid params answers the error as an SSE event, which the a2a-js client reports as it is', async () => {
    const res = await server.fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'bad-stream', method: 'message/stream', params: { message: { kind: 'message', role: 'user' } } }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = await sseFrames(res);
    assert.equal(frames.length, 1);
    assert.equal(errorCode(frames[0]), -32602);
    assert.equal(frames[0].id, 'bad-stream');
    // through the client: the real error, not "Invalid response Content-Type for SSE stream"
    const bad = { message: { kind: 'message', role: 'user', messageId: 'm-bad', parts: 'not a list' } } as never;
    await assert.rejects(
      async () => {
        for await (const _ of echo.sendMessageStream(bad)) void _;
      },
      (err: Error) => {
        assert.doesNotMatch(err.message, /Content-Type/);
        assert.match(err.message, /-32602|Invalid params/);
        return true;
      },
    );
  });

  test('tasks/resubscribe with invalid params: the a2a-js client reports the -32602, not the content type', async () => {
    await assert.rejects(
      async () => {
        for await (const _ of echo.resubscribeTask({} as never)) void _;
      },
      (err: Error) => {
        assert.doesNotMatch(err.message, /Content-Type/);
        assert.match(err.message, /Code: -32602/);
        assert.match(err.message, /params\.id/);
        return true;
      },
    );
  });

  test('an unknown assistant is HTTP 404', async () => {
    const { status, json } = await rpc(`${server.url}/a2a/no-such-graph`, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } });
    assert.equal(status, 404);
    assert.match(json.detail, /no-such-graph/);
  });
});

describe('a path that names no assistant', () => {
  test('POST /a2a/%2E answers a status the spec lists for the endpoint (422, the documented shape)', async () => {
    const { operations } = await import('../../../generated/agent-server/operations.gen.ts');
    const documented = Object.keys(operations.find((o) => o.operationId === 'a2aRpc')!.responses);
    // fetch (and a URL string) folds %2E away as a dot-segment: the raw path is sent as a raw HTTP client sends it
    const res = await server.handle(
      new Request(`${server.url}/a2a/x`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }),
      }),
      {
        rawPath: '/a2a/%2E',
      },
    );
    const [status, body] = [res.status, await res.text()];
    assert.equal(status, 422);
    assert.ok(documented.includes(String(status)), `a2aRpc documents ${documented.join(', ')}, not ${status}`);
    assert.ok(Array.isArray(JSON.parse(body).detail), body);
  });
});
