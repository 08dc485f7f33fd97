// LangChain's Python SDK (langgraph-sdk 0.4.3) replayed: the requests its calls send, byte for
// byte where it matters — the query string (httpx writes an argument left `None` as an empty
// parameter), the headers (its User-Agent; `Accept: text/event-stream` and `Cache-Control:
// no-store` on streams) and its compact JSON bodies (orjson's bytes are JSON.stringify's) —
// read from its source (langgraph_sdk/_async/runs.py join_stream, threads.py search and
// count, _shared/utilities.py _get_headers). The SDK itself needs httpx, orjson and
// langchain-core, which Debian does not package, so its requests are sent instead.
import { randomUUID } from 'node:crypto';
import { bearer, parseSse, USER, type Side } from './harness.ts';
import type { Scenario } from './scenarios.ts';

const PYTHON_SDK = { 'user-agent': 'langgraph-sdk-py/0.4.3', accept: '*/*', 'accept-encoding': 'gzip, deflate' };
const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const chatOf = (values: unknown) =>
  ((values as { messages?: { type: string; content: unknown }[] } | null)?.messages ?? []).map((m) => `${m.type}: ${String(m.content)}`);

/** A request as the Python SDK sends it; its status and JSON (or SSE events, or text). */
async function python(side: Side, method: string, pathname: string, options: { body?: unknown; stream?: boolean } = {}) {
  const headers: Record<string, string> = { ...PYTHON_SDK, ...bearer(USER) };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.stream) Object.assign(headers, { accept: 'text/event-stream', 'cache-control': 'no-store' });
  const res = await fetch(side.url + pathname, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  if (options.stream) return { status: res.status, type: res.headers.get('content-type')?.split(';')[0], events: parseSse(text) };
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Three threads of this scenario's own (a tag in their metadata): one ran with "hi", one with "bye", one never ran. */
async function taggedThreads(side: Side) {
  const client = side.client();
  const tag = randomUUID();
  const made = async (content?: string) => {
    const thread = await client.threads.create({ metadata: { pysdk: tag } });
    if (content) await client.runs.wait(thread.thread_id, 'chat', { input: say(content) });
    return thread.thread_id;
  };
  const ids = { hi: await made('hi'), bye: await made('bye'), fresh: await made() };
  const label = (id: unknown) => Object.entries(ids).find(([, v]) => v === id)?.[0] ?? id;
  return { tag, label };
}

export const pythonSdkScenarios: Scenario[] = [
  {
    name: 'python sdk: runs.join_stream with defaults',
    covers: 'client.runs.join_stream(thread_id, run_id): GET …/stream?cancel_on_disconnect=false&stream_mode=',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, 'chat', { input: say('join me') });
      // what the stream holds depends on whether the run is still going (the JS SDK's join
      // streams scenario compares that): here, that the SDK's request is streamed at all
      const joined = await python(side, 'GET', `/threads/${thread.thread_id}/runs/${run.run_id}/stream?cancel_on_disconnect=false&stream_mode=`, {
        stream: true,
      });
      await client.runs.join(thread.thread_id, run.run_id);
      return { status: joined.status, type: 'type' in joined ? joined.type : undefined };
    },
  },
  {
    name: 'python sdk: threads.search values',
    covers: 'client.threads.search(metadata=…, values=…) and threads.count(values=…): upstream containment',
    async run(side) {
      const { tag, label } = await taggedThreads(side);
      const search = async (values: unknown) => {
        const reply = await python(side, 'POST', '/threads/search', { body: { limit: 10, offset: 0, metadata: { pysdk: tag }, values } });
        return { status: reply.status, found: Array.isArray(reply.body) ? reply.body.map((t: { thread_id: string }) => label(t.thread_id)) : reply.body };
      };
      return {
        firstMessage: await search({ messages: [{ content: 'hi' }] }),
        twoMessages: await search({ messages: [{ content: 'hi' }, { type: 'ai', content: 'echo: hi' }] }),
        secondOnly: await search({ messages: [{ content: 'echo: hi' }] }),
        nested: await search({ messages: [{ type: 'human' }] }),
        nullValue: await search({ messages: null }),
        missingKey: await search({ nothing: 1 }),
        count: await python(side, 'POST', '/threads/count', { body: { metadata: { pysdk: tag }, values: { messages: [{ content: 'bye' }] } } }),
      };
    },
  },
  {
    name: 'python sdk: threads.search select',
    covers: 'client.threads.search(select=[…]): only the named fields, unknown names selecting nothing',
    async run(side) {
      const { tag, label } = await taggedThreads(side);
      const search = async (select: string[], offset = 0) => {
        const reply = await python(side, 'POST', '/threads/search', { body: { limit: 10, offset, metadata: { pysdk: tag }, select } });
        const rows = Array.isArray(reply.body) ? (reply.body as Record<string, unknown>[]) : [];
        return {
          status: reply.status,
          rows: rows.map((row) => ({
            keys: Object.keys(row).sort(),
            ...(row.thread_id ? { thread: label(row.thread_id) } : {}),
            ...(row.status ? { status: row.status } : {}),
            ...('values' in row ? { chat: chatOf(row.values) } : {}),
          })),
        };
      };
      return {
        idAndStatus: await search(['thread_id', 'status']),
        withContext: await search(['thread_id', 'context']),
        // the threads that ran (a thread never run has no values on upstream, null here: listed for `thread lifecycle`)
        values: await search(['values'], 1),
        none: await search([]),
      };
    },
  },
];
