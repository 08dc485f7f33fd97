// The protocol WebSocket is behind the same door as REST, probed as a hostile client would:
// key-less and forged upgrades get REST's 401 before any `101`; big frames are refused at the
// body cap; many sockets hit the client's cap; one client's subscriptions never count against
// another's (with auth off every client used to share the server's own loopback address);
// idle sockets are closed; another user's thread is as missing over the socket as over REST;
// commands on the socket are read as spec/protocol.openrpc.json says (the same over HTTP, and
// the rest of the protocol, in test/handlers/agent-server/protocol.test.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import WebSocket from 'ws';
import { ROOT, startTestServer, type TestServer } from '../../../support/server.ts';
import { testProject } from '../../../fixtures/agent-server/project.ts';
import { api } from '../../../support/protocolEvents.ts';
import { CommandReply as isCommandReply } from '../../../../generated/protocol/components.validators.gen.js';

type Refused = { refused: number; body: string; headers: Record<string, string | string[] | undefined> };
type Message = Record<string, unknown> & { id?: number; type: string; error?: string; result?: { subscription_id?: string } };

const socketUrl = (server: TestServer, thread: string) => `${server.url.replace('http', 'ws')}/threads/${thread}/stream/events`;

/** Opens a socket: the open socket, or the HTTP answer that refused the upgrade. */
async function open(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket | Refused> {
  const ws = new WebSocket(url, options);
  return new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error('no answer to the upgrade')), 10_000).unref();
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ refused: res.statusCode ?? 0, body, headers: res.headers }));
    });
    ws.once('error', reject);
  });
}

function opened(socket: WebSocket | Refused): WebSocket {
  if (!(socket instanceof WebSocket)) throw new Error(`upgrade refused: ${socket.refused} ${socket.body}`);
  return socket;
}

/** Sends commands on a socket and waits for the answer with their id. */
function asker(ws: WebSocket) {
  const replies: Message[] = [];
  ws.on('message', (data) => replies.push(JSON.parse(String(data)) as Message));
  return async (id: number, method: string, params: Record<string, unknown>): Promise<Message> => {
    ws.send(JSON.stringify({ id, method, params }));
    for (let i = 0; i < 500; i++) {
      const reply = replies.find((r) => r.id === id);
      if (reply) return reply;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no answer to command ${id}`);
  };
}

/** The socket's close, or a failure when it is still open after `ms`. */
const closed = (ws: WebSocket, ms = 10_000) =>
  new Promise<{ code: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the socket is still open after ${ms} ms`)), ms);
    ws.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code });
    });
  });

describe('credentials are checked at the upgrade, as REST checks them', () => {
  it('a key-less or forged upgrade gets the 401 REST gives, before any 101', async () => {
    const server = await startTestServer({ dataDir: null, project: testProject, env: { AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
    try {
      const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
      for (const headers of [{}, { 'x-api-key': 'made-up' }, { authorization: 'Bearer made-up' }] as Record<string, string>[]) {
        const rest = await fetch(`${server.url}/threads/${thread.thread_id}/stream/events`, { headers });
        const socket = await open(socketUrl(server, thread.thread_id), { headers });
        assert.ok(!(socket instanceof WebSocket), `upgraded with ${JSON.stringify(headers)}`);
        assert.equal(socket.refused, 401);
        assert.equal(rest.status, 401);
        assert.deepEqual(JSON.parse(socket.body), await rest.json());
        assert.equal(socket.headers['www-authenticate'], rest.headers.get('www-authenticate'));
      }
      // the right key opens it, and the thread is the tenant's own
      const ws = opened(await open(socketUrl(server, thread.thread_id), { headers: { 'x-api-key': server.key } }));
      assert.equal((await asker(ws)(1, 'subscription.subscribe', { channels: ['values'] })).type, 'success');
      ws.close();
    } finally {
      await server.close();
    }
  });

  it("the project's custom auth refuses a key-less upgrade as it refuses REST, and another user's thread is missing over the socket", async () => {
    const project = { ...testProject, auth: { path: path.join(ROOT, 'test/fixtures/auth/by-user.ts:auth') } };
    const server = await startTestServer({ dataDir: null, project });
    try {
      const rest = await fetch(`${server.url}/threads/any/stream/events`);
      const socket = await open(socketUrl(server, 'any'));
      assert.ok(!(socket instanceof WebSocket), 'upgraded without the credentials the auth handler asks for');
      assert.equal(socket.refused, 401);
      assert.equal(rest.status, 401);
      assert.deepEqual(JSON.parse(socket.body), await rest.json());

      const asB = { authorization: 'Bearer user-owner-b' };
      const thread = (await (
        await fetch(`${server.url}/threads`, { method: 'POST', headers: { ...asB, 'content-type': 'application/json' }, body: '{}' })
      ).json()) as { thread_id: string };
      const ws = opened(await open(socketUrl(server, thread.thread_id), { headers: { authorization: 'Bearer user-owner-a' } }));
      const ask = asker(ws);
      assert.equal((await ask(1, 'subscription.subscribe', { channels: ['values'] })).error, 'not_found');
      const started = await ask(2, 'run.start', { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'x' }] } });
      assert.equal(started.error, 'not_found');
      ws.close();
      // nothing ran on B's thread
      const runs = (await (await fetch(`${server.url}/threads/${thread.thread_id}/runs`, { headers: asB })).json()) as unknown[];
      assert.deepEqual(runs, []);
    } finally {
      await server.close();
    }
  });
});

/** Key-less requests on raw connections that never close from their side: each connection once answered, with its status. */
async function refusedAndHeld(server: TestServer, count: number, request: (i: number) => string, sockets: net.Socket[]): Promise<number[]> {
  const { port } = new URL(server.url);
  return Promise.all(
    Array.from({ length: count }, (_, i) => {
      // allowHalfOpen: the client never ends its side, as the attacker's did
      const socket = net.connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
      sockets.push(socket);
      socket.on('error', () => undefined);
      return new Promise<number>((resolve) => {
        let head = '';
        socket.on('data', (chunk: Buffer) => {
          head += chunk.toString('latin1');
          const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
          if (status) resolve(Number(status[1]));
        });
        socket.once('connect', () => socket.write(request(i)));
      });
    }),
  );
}

const connectionsOf = (server: TestServer) =>
  new Promise<number>((resolve, reject) => server.http.getConnections((err, n) => (err ? reject(err) : resolve(n))));

/** Waits up to `ms` for the server's connections to fall to `count`: how long it took, or a failure naming how many are left. */
async function connectionsFallTo(server: TestServer, count: number, ms: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const now = await connectionsOf(server);
    if (now <= count) return Date.now() - started;
    if (Date.now() - started > ms) assert.fail(`the server still holds ${now} connections (at most ${count} expected) ${ms} ms after answering`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a refused client is answered and let go (issue 83: held refusals starved other clients)', () => {
  it('300 key-less upgrades that never close get 401 and the server closes them all at once; a keyed client still connects', async () => {
    const server = await startTestServer({ dataDir: null, project: testProject, env: { AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
    const sockets: net.Socket[] = [];
    try {
      const baseline = await connectionsOf(server);
      const upgrade = (i: number) =>
        `GET /threads/t${i}/stream/events HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Buffer.from(randomUUID().slice(0, 16)).toString('base64')}\r\n\r\n`;
      const statuses = await refusedAndHeld(server, 300, upgrade, sockets);
      assert.deepEqual(new Set(statuses), new Set([401]));
      await connectionsFallTo(server, baseline, 3_000);
      // the server closed them: every client socket hears its end
      await Promise.all(sockets.map((s) => (s.readableEnded ? undefined : once(s, 'end'))));
      const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
      const ws = opened(await open(socketUrl(server, thread.thread_id), { headers: { 'x-api-key': server.key } }));
      ws.close();
    } finally {
      // (held by the client, the server's refused sockets would hold its close too)
      for (const s of sockets) s.destroy();
      await server.close();
    }
  });

  it('300 key-less plain requests on kept-alive connections get 401 and their connections are closed, not kept alive', async () => {
    const server = await startTestServer({ dataDir: null, project: testProject, env: { AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
    const sockets: net.Socket[] = [];
    try {
      const baseline = await connectionsOf(server);
      const plain = () => 'GET /threads/any HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n';
      const statuses = await refusedAndHeld(server, 300, plain, sockets);
      assert.deepEqual(new Set(statuses), new Set([401]));
      await connectionsFallTo(server, baseline, 3_000);
      assert.equal((await server.api('/threads', { method: 'POST', json: {} })).status, 200);
    } finally {
      for (const s of sockets) s.destroy();
      await server.close();
    }
  });
});

describe("one address's refused upgrades are paced (issue 83: ~8,000 refused a second took most of the server's CPU)", () => {
  it('a client that reopens key-less upgrades as soon as each is let go is answered at the pace, each answer a 401; a keyed client is not held', async () => {
    const server = await startTestServer({ dataDir: null, project: testProject, env: { AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
    const { port } = new URL(server.url);
    const statuses = new Map<number, number>();
    let flooding = true;
    const upgrade =
      'GET /threads/t/stream/events HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
    const refusedOnce = () =>
      new Promise<void>((resolve) => {
        const socket = net.connect({ port: Number(port), host: '127.0.0.1' });
        let head = '';
        socket.on('error', () => undefined);
        socket.on('data', (chunk: Buffer) => (head += chunk.toString('latin1')));
        socket.once('connect', () => socket.write(upgrade));
        socket.once('close', () => {
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          resolve();
        });
      });
    const loops = Array.from({ length: 16 }, async () => {
      while (flooding) await refusedOnce();
    });
    try {
      // the burst (300) goes at once; then 100 a second
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
      const started = performance.now();
      const ws = opened(await open(socketUrl(server, thread.thread_id), { headers: { 'x-api-key': server.key } }));
      ws.close();
      assert.ok(performance.now() - started < 1_000, 'the keyed upgrade from the same address waited for the refusals');
      flooding = false;
      await Promise.all(loops);
      assert.deepEqual([...statuses.keys()], [401], 'every refused upgrade is answered');
      // unpaced, that was thousands; the pace allows 300 + 100 a second (~2 s here), and the sockets in flight
      assert.ok(statuses.get(401)! <= 300 + 100 * 3 + 16, `${statuses.get(401)} refusals in ~2 s`);
    } finally {
      flooding = false;
      await server.close();
    }
  });
});

describe('a socket is held to the caps of a request', () => {
  it('a message larger than a request body closes the socket (1009) and the server goes on answering', async () => {
    const server = await startTestServer({ dataDir: null, project: testProject, env: { AGENTPLANE_MAX_BODY_BYTES: String(64 * 1024) } });
    try {
      const ws = opened(await open(socketUrl(server, 'any')));
      const gone = closed(ws);
      ws.send(JSON.stringify({ id: 1, method: 'run.start', params: { assistant_id: 'echo', input: { pad: 'x'.repeat(128 * 1024) } } }));
      assert.equal((await gone).code, 1009);
      assert.equal((await fetch(`${server.url}/ok`)).status, 200);
    } finally {
      await server.close();
    }
  });

  it("a client's sockets are capped: one over AGENTPLANE_MAX_STREAMS_PER_CLIENT gets 429 before any 101, and a closed one gives its slot back", async () => {
    const server = await startTestServer({ dataDir: null, project: testProject, env: { AGENTPLANE_MAX_STREAMS_PER_CLIENT: '3' } });
    try {
      const held = [];
      for (let i = 0; i < 3; i++) held.push(opened(await open(socketUrl(server, 'any'))));
      const over = await open(socketUrl(server, 'any'));
      assert.ok(!(over instanceof WebSocket), 'a fourth socket was upgraded');
      assert.equal(over.refused, 429);
      assert.match(JSON.parse(over.body).detail, /Too many open WebSockets/);
      const gone = closed(held[0]);
      held[0].close();
      await gone;
      let again = await open(socketUrl(server, 'any'));
      for (let i = 0; i < 50 && !(again instanceof WebSocket); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        again = await open(socketUrl(server, 'any'));
      }
      held[0] = opened(again);
      for (const ws of held) ws.close();
    } finally {
      await server.close();
    }
  });

  it("with auth off, one client's subscriptions do not use up another's (each is capped by its own address)", async () => {
    const server = await startTestServer({ dataDir: null, project: testProject, env: { AGENTPLANE_MAX_STREAMS_PER_CLIENT: '1' } });
    try {
      const thread = (await (await fetch(`${server.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
        thread_id: string;
      };
      const first = opened(await open(socketUrl(server, thread.thread_id), { localAddress: '127.0.0.2' }));
      const askFirst = asker(first);
      assert.equal((await askFirst(1, 'subscription.subscribe', { channels: ['values'] })).type, 'success');
      // the same client over its cap is refused …
      assert.equal((await askFirst(2, 'subscription.subscribe', { channels: ['values'] })).error, 'resource_exhausted');
      // … another client is not
      const second = opened(await open(socketUrl(server, thread.thread_id), { localAddress: '127.0.0.3' }));
      assert.equal((await asker(second)(1, 'subscription.subscribe', { channels: ['values'] })).type, 'success');
      // nor is a REST stream of a third
      const sse = await fetch(`${server.url}/threads/${thread.thread_id}/stream/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ channels: ['values'] }),
      });
      assert.equal(sse.status, 200);
      await sse.body?.cancel();
      first.close();
      second.close();
    } finally {
      await server.close();
    }
  });

  it("the protocol's subscriptions take a slot as the route does: one over the cap is resource_exhausted, and unsubscribing gives it back", async () => {
    const server = await startTestServer({ project: testProject, dataDir: null, env: { AGENTPLANE_MAX_STREAMS_PER_CLIENT: '1' } });
    try {
      const thread = await fetch(`${server.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const { thread_id } = (await thread.json()) as { thread_id: string };
      const socket = new WebSocket(`${server.url.replace('http', 'ws')}/threads/${thread_id}/stream/events`);
      await once(socket, 'open');
      const replies: Record<string, unknown>[] = [];
      socket.on('message', (data) => replies.push(JSON.parse(String(data)) as Record<string, unknown>));
      const ask = async (id: number, method: string, params: Record<string, unknown>) => {
        socket.send(JSON.stringify({ id, method, params }));
        for (let i = 0; i < 200 && !replies.some((r) => r.id === id); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        return replies.find((r) => r.id === id) as { type: string; error?: string; result?: { subscription_id: string } };
      };
      const first = await ask(1, 'subscription.subscribe', { channels: ['values'] });
      assert.equal(first.type, 'success');
      assert.equal((await ask(2, 'subscription.subscribe', { channels: ['values'] })).error, 'resource_exhausted');
      assert.equal((await ask(3, 'subscription.unsubscribe', { subscription_id: first.result!.subscription_id })).type, 'success');
      let third = await ask(4, 'subscription.subscribe', { channels: ['values'] });
      // the slot comes back when the route's response has closed, a moment after the unsubscribe
      for (let id = 5; third.type !== 'success' && id < 50; id++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        third = await ask(id, 'subscription.subscribe', { channels: ['values'] });
      }
      assert.equal(third.type, 'success');
      socket.close();
    } finally {
      await server.close();
    }
  });

  it('a socket that subscribes to nothing and sends nothing is closed once idle; one with a subscription stays', async () => {
    const server = await startTestServer({ dataDir: null, project: testProject, env: { AGENTPLANE_SOCKET_IDLE_SECONDS: '1' } });
    try {
      const thread = (await (await fetch(`${server.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
        thread_id: string;
      };
      const idle = opened(await open(socketUrl(server, thread.thread_id)));
      const busy = opened(await open(socketUrl(server, thread.thread_id)));
      assert.equal((await asker(busy)(1, 'subscription.subscribe', { channels: ['values'] })).type, 'success');
      const started = Date.now();
      const { code } = await closed(idle);
      assert.equal(code, 1000);
      assert.ok(Date.now() - started < 5_000, `closed after ${Date.now() - started} ms`);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      assert.equal(busy.readyState, WebSocket.OPEN);
      busy.close();
    } finally {
      await server.close();
    }
  });
});

/** Sends commands on the thread's protocol WebSocket; their replies in order (and, with `until`, the messages up to the first it accepts). */
async function socketReplies(server: TestServer, key: string, threadId: string, commands: object[], until?: (m: any) => boolean): Promise<any[]> {
  const ws = new WebSocket(socketUrl(server, threadId), { headers: { 'x-api-key': key } });
  await once(ws, 'open');
  const got: any[] = [];
  const done = new Promise<void>((resolve) =>
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      got.push(message);
      if (until ? until(message) : got.filter((m) => m.type !== 'event').length === commands.length) resolve();
    }),
  );
  for (const command of commands) ws.send(JSON.stringify(command));
  await done;
  ws.close();
  return got;
}

for (const workers of ['default', '0']) {
  describe(`the protocol's commands over the socket (AGENTPLANE_RUN_WORKERS=${workers})`, () => {
    const fixture = path.join(ROOT, 'test/fixtures/graphs/protocol.ts');
    const keyA = `key-a-${randomUUID()}`;
    const keyB = `key-b-${randomUUID()}`;
    const ALL = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input'];
    let server: TestServer;
    let a: ReturnType<typeof api>;
    before(async () => {
      server = await startTestServer({
        project: { graphs: { talk: `${fixture}:talk`, ask: `${fixture}:ask` } },
        compiledModules: true,
        dataDir: null,
        runWorkers: workers,
        env: { AGENTPLANE_AGENT_SERVER_AUTH: '1', AGENTPLANE_API_KEYS: `${keyA}:${randomUUID()},${keyB}:${randomUUID()}` },
      });
      a = api(server, keyA);
    });
    after(() => server.close());

    it('are read as spec/protocol.openrpc.json says: the socket answers subscriptions itself, from the same contract', { timeout: 30_000 }, async () => {
      const threadId = randomUUID();
      const invalid = (id: number, message: string) => ({ type: 'error', id, error: 'invalid_argument', message });
      await a(`/threads/${threadId}/commands`, { id: 5, method: 'run.start', params: { assistant_id: 'ask', input: {} } });
      const socket = await socketReplies(server, keyA, threadId, [
        { id: 6, method: 'subscription.subscribe', params: { channels: ['values', 'nonsense'] } },
        { id: 7, method: 'subscription.subscribe', params: { channels: [] } },
        { id: 8, method: 'subscription.unsubscribe', params: {} },
        { id: 9, method: 'state.get', params: 'all' },
        { id: -1, method: 'state.get' },
      ]);
      assert.deepEqual(
        socket.sort((x, y) => (x.id ?? 99) - (y.id ?? 99)),
        [
          invalid(6, 'subscription.subscribe received an unsupported channel.'),
          invalid(7, 'subscription.subscribe requires a non-empty channels array.'),
          invalid(8, 'subscription.unsubscribe requires a subscription_id.'),
          invalid(9, 'Protocol command params must be an object.'),
          { type: 'error', id: null, error: 'invalid_argument', message: 'Protocol commands must include an integer id and string method.' },
        ],
      );
      for (const reply of socket) assert.ok(isCommandReply(reply), JSON.stringify(isCommandReply.errors));
    });

    it("another tenant's thread over the WebSocket is answered as a missing one", { timeout: 30_000 }, async () => {
      const threadId = randomUUID();
      await a(`/threads/${threadId}/commands`, { id: 1, method: 'run.start', params: { assistant_id: 'ask', input: {} } });
      const missing = randomUUID();
      const subscribe = { id: 2, method: 'subscription.subscribe', params: { channels: ALL, since: 0 } };
      // the owner's socket subscribes and is replayed the run's events
      const mine = await socketReplies(server, keyA, threadId, [subscribe], (m) => m.method === 'lifecycle');
      assert.equal(mine[0].type, 'success');
      assert.ok(mine.some((m: any) => m.type === 'event' && m.seq === 1));
      const asked = [subscribe, { id: 3, method: 'state.get' }, { id: 4, method: 'input.respond', params: { interrupt_id: 'x', response: 'y' } }];
      const theirs = await socketReplies(server, keyB, threadId, asked);
      const none = await socketReplies(server, keyB, missing, asked);
      assert.equal(theirs[0].error, 'not_found');
      // (commands are answered as they finish: compared in the order of their ids)
      const view = (replies: any[], id: string) => JSON.parse(JSON.stringify(replies.sort((x, y) => x.id - y.id)).replaceAll(id, 'ID'));
      assert.deepEqual(view(theirs, threadId), view(none, missing));
    });
  });
}
