// Protocol v2 (the thread-centric event streaming the SDK's `client.threads.stream()` and the
// `useStream` hooks of @langchain/react 1.1 and @langchain/svelte 1.0 speak): commands and
// their replies or errors, the events per channel, replay from `since`, namespace and depth
// filters, an interrupt surfacing as `input.requested` and answered by `input.respond`,
// errors for bad commands and filters, another user's thread; raw over HTTP and through the
// SDK's ThreadStream over both transports. Every thread is new (a random id: `run.start`
// creates it), so scenarios do not see each other's events.
import { randomUUID } from 'node:crypto';
import { bearer, USER, type Side } from './harness.ts';
import type { Scenario } from './scenarios.ts';
import { followAssistant, replayThread } from './threadStream.ts';
import { overlappingSubscriptions } from './overlappingSubscriptions.ts';

type Sse = { event: string; data: unknown };
type ProtocolEvent = {
  type: string;
  event_id?: string;
  seq: number;
  method: string;
  params: { namespace: string[]; timestamp?: number; node?: string; data: any };
};

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });
const ALL_CHANNELS = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input'];

/** A command to the thread; its reply (status and body). */
const command = (side: Side, threadId: string, id: number, method: string, params?: unknown, user?: string) =>
  side.http('POST', `/threads/${threadId}/commands`, { body: { id, method, ...(params === undefined ? {} : { params }) }, user });

const protocolEvent = (e: Sse) => e.data as ProtocolEvent;
/** The root graph's lifecycle reached one of these (its run is over for now). */
const rootLifecycle =
  (...states: string[]) =>
  (e: Sse) => {
    const ev = protocolEvent(e);
    return ev?.method === 'lifecycle' && ev.params.namespace.length === 0 && states.includes(ev.params.data?.event);
  };
const RUN_OVER = rootLifecycle('completed', 'interrupted', 'failed');

/** Events as a client reads them: all but the wall-clock timestamp (present and a number), SSE's `event:` line checked against the method. */
const eventView = (events: Sse[]) =>
  events.map((e) => {
    const { params, ...rest } = protocolEvent(e);
    const { timestamp, ...kept } = params ?? ({} as ProtocolEvent['params']);
    return { sse: e.event === rest.method ? 'event = method' : e.event, ...rest, params: { ...kept, timestamp: typeof timestamp } };
  });

/** Subscribes from `since` and reads until `done` (60 s at most: a loaded machine's first run loads its graph). */
async function events(side: Side, threadId: string, filter: Record<string, unknown>, done: (e: Sse) => boolean = RUN_OVER, user?: string, timeoutMs?: number) {
  const got = await side.openStream(`/threads/${threadId}/stream/events`, filter, done, { user, timeoutMs });
  return { status: got.status, timedOut: got.timedOut, events: eventView(got.events), ...(got.body === undefined ? {} : { body: got.body }) };
}

/** A new thread with the assistant's run started on it, and the run's events until it stops for approval. */
async function interruptedRun(side: Side, question = 'what is 6 * 7') {
  const threadId = randomUUID();
  const started = await command(side, threadId, 1, 'run.start', { assistant_id: 'assistant', input: ask(question) });
  const stream = await events(side, threadId, { channels: ALL_CHANNELS, since: 0 });
  const requested = stream.events.find((e) => e.method === 'input.requested');
  return { threadId, started, stream, interruptId: requested?.params.data?.interrupt_id as string | undefined };
}

export const protocolV2Scenarios: Scenario[] = [
  {
    name: 'protocol v2: run.start, every channel replayed from since 0',
    covers:
      'POST /threads/{id}/commands run.start (a new thread), POST /threads/{id}/stream/events since 0: tokens, tool call, subgraph namespace, input.requested',
    async run(side) {
      const { started, stream } = await interruptedRun(side);
      return { started, stream };
    },
  },
  {
    name: 'protocol v2: input.requested answered by input.respond',
    covers: 'input.respond {interrupt_id, response}, the resumed run streamed from applied_through_seq, state.get, input.respond with nothing to answer',
    async run(side) {
      const { threadId, interruptId, stream } = await interruptedRun(side, 'what is 2 + 3');
      const responded = await command(side, threadId, 2, 'input.respond', { interrupt_id: interruptId, response: 'approved' });
      // from the first run's last event (not the reply's applied_through_seq, which counts the
      // resumed run's first event on upstream only: a deliberate difference of its own)
      const since = stream.events.at(-1)?.seq ?? 0;
      const resumed = await events(side, threadId, { channels: ALL_CHANNELS, since }, rootLifecycle('completed', 'failed'));
      const state = await command(side, threadId, 3, 'state.get', {});
      const again = await command(side, threadId, 4, 'input.respond', { interrupt_id: interruptId, response: 'twice' });
      return { responded, resumed, state, again };
    },
  },
  {
    name: 'protocol v2: input.respond while the asking run still runs',
    covers:
      'input.respond sent as input.requested arrives, while a node beside the asking one still works: accepted (upstream answers once the asking run has ended, agentplane at once), the resume run after it answers the question',
    async run(side) {
      const threadId = randomUUID();
      await command(side, threadId, 1, 'run.start', { assistant_id: 'approval_beside', input: ask('may I?') });
      const asked = await events(side, threadId, { channels: ['input'], since: 0 }, (e) => protocolEvent(e)?.method === 'input.requested');
      const interruptId = asked.events.find((e) => e.method === 'input.requested')?.params.data?.interrupt_id;
      const responded = await command(side, threadId, 2, 'input.respond', { interrupt_id: interruptId, response: 'approved' });
      // the asking run's end, then the resumed run's
      await events(side, threadId, { channels: ['lifecycle'], since: 0 }, rootLifecycle('completed', 'failed'));
      const state = await command(side, threadId, 3, 'state.get', {});
      // the reply's meta counts events up to when it was answered, which differs by design (above)
      const body = responded.body as { type?: string; result?: unknown; error?: string; message?: string };
      return {
        responded: { status: responded.status, type: body.type, result: body.result, error: body.error, message: body.message },
        decision: (state.body as { result?: { values?: { decision?: string } } }).result?.values?.decision,
      };
    },
  },
  {
    name: 'protocol v2: run.start with input while the asking run still runs',
    covers:
      'run.start with input sent as input.requested arrives, while a node beside the asking one still works: a resume of the question (upstream reads the state, whose tasks hold the interrupt), queued behind the asking run, which answers it',
    async run(side) {
      const threadId = randomUUID();
      await command(side, threadId, 1, 'run.start', { assistant_id: 'approval_beside', input: ask('may I?') });
      await events(side, threadId, { channels: ['input'], since: 0 }, (e) => protocolEvent(e)?.method === 'input.requested');
      const started = await command(side, threadId, 2, 'run.start', { assistant_id: 'approval_beside', input: 'approved' });
      await events(side, threadId, { channels: ['lifecycle'], since: 0 }, rootLifecycle('completed', 'failed'));
      const state = await command(side, threadId, 3, 'state.get', {});
      const body = started.body as { type?: string; error?: string; message?: string };
      return {
        started: { status: started.status, type: body.type, error: body.error, message: body.message },
        decision: (state.body as { result?: { values?: { decision?: string } } }).result?.values?.decision,
      };
    },
  },
  {
    name: 'protocol v2: replay from since, channel filters',
    covers: 'stream/events since N replays only later events; channels select methods; two subscribers see the same seq numbers',
    async run(side) {
      const { threadId } = await interruptedRun(side, 'hello there');
      const since10 = await events(side, threadId, { channels: ['lifecycle', 'messages'], since: 10 });
      const valuesOnly = await events(side, threadId, { channels: ['lifecycle', 'values'], since: 0 });
      const toolsAndInput = await events(side, threadId, { channels: ['lifecycle', 'tools', 'input'], since: 0 });
      return { since10, valuesOnly, toolsAndInput };
    },
  },
  {
    name: 'protocol v2: namespace and depth filters',
    covers: 'stream/events namespaces (a subgraph prefix) and depth (0: the root graph only)',
    async run(side) {
      const { threadId } = await interruptedRun(side);
      const subgraphDone = (e: Sse) => {
        const ev = protocolEvent(e);
        return ev?.method === 'lifecycle' && ev.params.namespace[0]?.startsWith('review') && ev.params.data?.event === 'completed';
      };
      const review = await events(side, threadId, { channels: ['lifecycle', 'values', 'input'], namespaces: [['review']], since: 0 }, subgraphDone);
      const rootOnly = await events(side, threadId, { channels: ['lifecycle', 'values', 'messages'], namespaces: [[]], depth: 0, since: 0 });
      const oneDown = await events(side, threadId, { channels: ['lifecycle'], namespaces: [[]], depth: 1, since: 0 });
      return { review, rootOnly, oneDown };
    },
  },
  {
    name: 'protocol v2: commands without a run, and agent.getTree',
    covers: 'subscription.subscribe / agent.getTree / input.respond / an unknown method on a thread with no run; agent.getTree once a run is bound',
    async run(side) {
      const threadId = randomUUID();
      const before = {
        subscribe: await command(side, threadId, 1, 'subscription.subscribe', { channels: ['values'] }),
        tree: await command(side, threadId, 2, 'agent.getTree', {}),
        respond: await command(side, threadId, 3, 'input.respond', { interrupt_id: 'nope', response: 1 }),
        unknown: await command(side, threadId, 4, 'no.such.method', {}),
      };
      const started = await command(side, threadId, 5, 'run.start', { assistant_id: 'chat', input: ask('hi') });
      await events(side, threadId, { channels: ['lifecycle'], since: 0 });
      const after = {
        tree: await command(side, threadId, 6, 'agent.getTree', {}),
        unknown: await command(side, threadId, 7, 'no.such.method', {}),
        state: await command(side, threadId, 8, 'state.get', { keys: ['messages'] }),
      };
      return { before, started, after };
    },
  },
  {
    name: 'protocol v2: bad commands and filters',
    covers:
      'protocol errors: run.start without an assistant, another assistant on a bound thread, an unknown assistant, input.respond without interrupt_id; 4xx for a malformed command or filter',
    async run(side) {
      const threadId = randomUUID();
      const post = (pathname: string, body: unknown) => side.http('POST', pathname, { body });
      const started = await command(side, threadId, 1, 'run.start', { assistant_id: 'chat', input: ask('hi') });
      await events(side, threadId, { channels: ['lifecycle'], since: 0 });
      return {
        // (named so that it sorts first: ids are numbered in the order the observation lists them)
        first: started,
        noAssistant: await command(side, randomUUID(), 1, 'run.start', { input: ask('hi') }),
        otherAssistant: await command(side, threadId, 2, 'run.start', { assistant_id: 'approval', input: ask('hi') }),
        unknownAssistant: (await command(side, randomUUID(), 1, 'run.start', { assistant_id: 'no-such-graph', input: ask('hi') })).status,
        respondWithoutInterrupt: await command(side, threadId, 3, 'input.respond', { response: 'x' }),
        commandWithoutId: (await post(`/threads/${threadId}/commands`, { method: 'run.start' })).status,
        commandWithNegativeId: (await post(`/threads/${threadId}/commands`, { id: -1, method: 'run.start' })).status,
        commandNotJson: (await side.http('POST', `/threads/${threadId}/commands`, { headers: { 'content-type': 'application/json' }, body: undefined })).status,
        filterWithoutChannels: (await events(side, threadId, { since: 0 })).status,
        filterWithUnknownKey: (await events(side, threadId, { channels: ['values'], since: 0, extra: true })).status,
        filterNegativeSince: (await events(side, threadId, { channels: ['values'], since: -1 })).status,
      };
    },
  },
  {
    name: "protocol v2: another user's thread",
    covers: 'a user commanding or subscribing to a thread another user owns (custom auth, owner-* users)',
    async run(side) {
      const threadId = randomUUID();
      const started = await command(side, threadId, 1, 'run.start', { assistant_id: 'chat', input: ask('mine') }, 'owner-alice');
      const own = await events(side, threadId, { channels: ['lifecycle', 'values'], since: 0 }, RUN_OVER, 'owner-alice');
      const bob = {
        subscribe: await events(side, threadId, { channels: ['lifecycle', 'values'], since: 0 }, RUN_OVER, 'owner-bob', 3000),
        state: await command(side, threadId, 2, 'state.get', {}, 'owner-bob'),
        start: await command(side, threadId, 3, 'run.start', { assistant_id: 'chat', input: ask('theirs') }, 'owner-bob'),
        thread: (await side.http('GET', `/threads/${threadId}`, { user: 'owner-bob' })).status,
      };
      await events(side, threadId, { channels: ['lifecycle'], since: 17 }, RUN_OVER, 'owner-alice', 3000);
      const state = await side.http('GET', `/threads/${threadId}/state`, { user: 'owner-alice' });
      // what alice reads of her thread afterwards: whether bob's run got onto it
      const texts = ((state.body as { values?: { messages?: { content: unknown }[] } })?.values?.messages ?? []).map((m) => m.content);
      const after = { status: state.status, messages: texts };
      // (alice, bob, then: the order ids are numbered in)
      return { alice: { started, own }, bob, then: after };
    },
  },
  {
    name: 'protocol v2 SDK: client.threads.stream() over SSE',
    covers: 'SDK 1.15 ThreadStream (SSE): messages token by token, toolCalls, subgraphs, interrupts, input.respond, state.get',
    async run(side) {
      const server = { url: side.url, headers: bearer(USER) };
      const { observed, threadId } = await followAssistant(server, { question: 'what is 6 * 7', answer: 'ship it' });
      // a client coming back, over either transport, is replayed the thread's events
      return { ...observed, replayed: await replayThread(server, threadId), replayedOverWebSocket: await replayThread(server, threadId, 'websocket') };
    },
  },
  {
    name: 'protocol v2 SDK: client.threads.stream() over WebSocket',
    covers: 'SDK 1.15 ThreadStream (WebSocket GET /threads/{id}/stream/events, subscribe in band): the same run',
    async run(side) {
      const server = { url: side.url, headers: bearer(USER) };
      const { observed } = await followAssistant(server, { question: 'what is 2 + 3', answer: 'fine', transport: 'websocket' });
      // (no replay here: upstream buffers a thread's events for replay only while it is driven
      // over SSE, and forgets a WebSocket's thread when the socket closes)
      return { ...observed };
    },
  },
  {
    name: 'protocol v2 SDK: a later overlapping subscription on one WebSocket',
    covers:
      'SDK 1.15 ThreadStream over WebSocket: subscribe(lifecycle, values), a run, then subscribe(lifecycle, values, updates): the second is sent the run again, each event once per matching subscription',
    run: overlappingSubscriptions,
  },
];
