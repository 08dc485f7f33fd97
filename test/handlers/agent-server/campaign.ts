// The generated campaign (issue 84): sequences of writes generated with fast-check from the
// spec's request shapes and the shipped graphs' state (messages in the odd shapes LangChain
// takes: roles, content blocks, tool calls, remove messages; huge, deep and strange values,
// NUL and lone surrogates), each sent to a server, then everything read back as the clients
// and the dashboard read it. The invariant: no read (and no write) answers 5xx, and nothing
// stored before a write changes unless that write names it.
// CAMPAIGN_SEED and CAMPAIGN_RUNS pick another seed and a longer run (docs/development.md).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { InProcessApp } from '../../support/server.ts';
import { readDocument, resolve } from '../../conformance/lib/contract.ts';
import { schemaArbitrary } from '../../conformance/lib/schemaArbitrary.ts';

const SPEC = readDocument('agent-server');

/**
 * A request body as the spec's schema `name` describes it (the conformance suite's generator),
 * less the fields that would reach outside the campaign or outlast it (a webhook to a generated
 * URL, a delay past the join's wait), with `odd` over it: the shapes the schema leaves open.
 */
function specBody(name: string, odd: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  // those fields are left out of the schema, not generated and then deleted: the webhook is the
  // spec's only `format: uri`, and building fast-check's webUrl costs ~1.5 CPU-s a process
  const schema = resolve(SPEC, { $ref: `#/components/schemas/${name}` });
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([key]) => !AWAY.includes(key)));
  const required = (schema.required ?? []).filter((key: string) => !AWAY.includes(key));
  const fromSpec = schemaArbitrary(SPEC, { ...schema, properties, required }, { useExamples: true, maxDepth: 3 });
  return fc.tuple(fromSpec, odd).map(([generated, over]) => {
    const body = { ...(generated as Record<string, unknown>), ...over };
    for (const away of AWAY) delete body[away];
    return body;
  });
}

/** A body's fields that would reach outside the campaign or outlast it. */
const AWAY = ['webhook', 'after_seconds', 'on_completion', 'if_not_exists', 'ttl'];

/** Strings a client may send: ordinary, Unicode, text no store keeps (refused at the door), huge. */
const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 30, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  { weight: 4, arbitrary: fc.constantFrom('', ' ', 'null', '__proto__', 'constructor', 'toString', '\u202e', '\ufeff', 'é', '😀', '\u0001', '%00', '\\u0000') },
  // refused at the door: rare enough that most bodies holding a dozen strings go through
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom('a\u0000b', '\ud800', 'x\udfff', '😀\ud83d'), fc.string({ unit: 'binary', maxLength: 4 })) },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 120_000 }).map((n) => 'y'.repeat(n)) },
);

const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1e308, -1e308, 5e-324, -0, 2 ** 53 + 2, 0.1, -1));

/** A value nested `depth` levels (the body's limit is 100: deeper is a 422). */
const deep = fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 95 }) }, { weight: 1, arbitrary: fc.integer({ min: 96, max: 130 }) }).map((depth) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { d: value };
  return value;
});

/** Any JSON value, its strings and keys from `text`, with deep ones beside. */
const json: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text,
        number,
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text, tie('value'), { maxKeys: 4 }),
      ),
    })).value,
  },
  { weight: 1, arbitrary: deep },
);

/** What a field typed `object` holds: an object mostly, any value now and then (a 422). */
const objectOrNot = (o: fc.Arbitrary<unknown>) => fc.oneof({ weight: 8, arbitrary: o }, { weight: 1, arbitrary: json });

const object = fc.dictionary(text, json, { maxKeys: 4 });

const role = fc.constantFrom('user', 'human', 'assistant', 'ai', 'system', 'tool', 'developer', 'function', 'bogus', 'remove', '');
const type = fc.constantFrom('human', 'ai', 'system', 'tool', 'remove', 'chat', 'function', 'AIMessageChunk', 'bogus');

const contentBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image_url'), image_url: fc.oneof(text, fc.record({ url: text })) }),
  fc.record({ type: text, data: json }),
);
const content = fc.oneof({ weight: 4, arbitrary: text }, { weight: 2, arbitrary: fc.array(contentBlock, { maxLength: 3 }) }, { weight: 1, arbitrary: json });

const toolCall = fc.record(
  { id: text, name: fc.oneof(fc.constantFrom('calculator', 'word_count'), text), args: fc.oneof(object, text), type: fc.constant('tool_call') },
  { requiredKeys: ['name'] },
);

/** A message as a client writes one: by role or by type, with ids, tool calls and tool results, or removals. */
const message = fc.oneof(
  { weight: 4, arbitrary: fc.record({ role, content }, { requiredKeys: ['content'] }) },
  {
    weight: 3,
    arbitrary: fc.record(
      { role, type, content, id: text, name: text, tool_calls: fc.array(toolCall, { maxLength: 2 }), tool_call_id: text, additional_kwargs: object },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('remove'), id: fc.oneof(text, fc.constant('__remove_all__')) }) },
  { weight: 1, arbitrary: json },
);

/** A graph's input: the shipped graphs' state (messages), or any object. */
const input = fc.oneof(
  { weight: 5, arbitrary: fc.record({ messages: fc.array(message, { maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ messages: fc.oneof(message, text, json) }) },
  { weight: 1, arbitrary: object },
  { weight: 1, arbitrary: fc.constant(null) },
);

const config = fc.record(
  { configurable: object, tags: fc.array(text, { maxLength: 2 }), recursion_limit: fc.integer({ min: 1, max: 50 }), metadata: object },
  { requiredKeys: [] },
);

const command = fc.record(
  { resume: json, update: fc.oneof(input, fc.array(fc.tuple(text, json), { maxLength: 2 })), goto: fc.oneof(text, fc.array(text, { maxLength: 2 })) },
  { requiredKeys: [] },
);

const assistant = fc.constantFrom('echo', 'agent');
const node = fc.oneof(fc.constantFrom('agent', 'tools', 'echo', '__start__', '__end__', '__input__'), text);

/** One write; `thread` picks one of the sequence's threads (modulo their number), or a new one. */
export type Write =
  | { op: 'createThread'; body: Record<string, unknown> }
  | { op: 'patchThread'; thread: number; body: Record<string, unknown> }
  | { op: 'run'; thread: number; body: Record<string, unknown> }
  | { op: 'updateState'; thread: number; body: Record<string, unknown> }
  | { op: 'putItem'; body: Record<string, unknown> }
  | { op: 'createAssistant'; body: Record<string, unknown> }
  | { op: 'createCron'; thread: number; body: Record<string, unknown> };

const thread = fc.nat({ max: 7 });

export const write: fc.Arbitrary<Write> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('createThread' as const), body: specBody('ThreadCreateRequest', fc.record({ metadata: objectOrNot(object) })) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('patchThread' as const),
      thread,
      body: specBody('ThreadPatchRequest', fc.record({ metadata: objectOrNot(object) })),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('run' as const),
      thread,
      body: specBody(
        'RunCreate',
        fc.record(
          {
            assistant_id: assistant,
            input,
            command,
            config,
            context: object,
            metadata: object,
            stream_mode: fc.constantFrom('values', 'updates', 'messages-tuple'),
          },
          { requiredKeys: ['assistant_id'] },
        ),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('updateState' as const),
      thread,
      body: specBody(
        'ThreadStateUpdateRequest',
        fc.record({ values: fc.oneof(input, fc.array(input, { maxLength: 2 }), json), as_node: node }, { requiredKeys: [] }),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('putItem' as const),
      body: specBody(
        'StorePutRequest',
        fc.record({ namespace: fc.array(fc.oneof(text, fc.constantFrom('a', 'b')), { minLength: 1, maxLength: 3 }), key: text, value: object }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('createAssistant' as const),
      body: specBody(
        'AssistantCreate',
        fc.record({ graph_id: assistant, name: text, description: text, metadata: object, config, context: object }, { requiredKeys: ['graph_id'] }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('createCron' as const),
      thread,
      // a schedule that never comes due while the campaign runs: no cron run changes a thread meanwhile
      body: specBody(
        'CronCreate',
        fc.record(
          { assistant_id: assistant, schedule: fc.constant('0 0 1 1 *'), input, metadata: object, config, enabled: fc.constant(true) },
          { requiredKeys: ['assistant_id', 'schedule'] },
        ),
      ),
    }),
  },
);

/** What a sequence made, and what it read of each the last time. */
interface Made {
  threads: string[];
  runs: Map<string, string[]>;
  assistants: string[];
  items: { namespace: string[]; key: string }[];
}

/** How often each write answered each status: printed at the end with CAMPAIGN_TRACE=1, to see what a seed reached. */
const tallies = new Map<string, number>();
const tally = (what: string) => tallies.set(what, (tallies.get(what) ?? 0) + 1);

/** A refusal's reasons, short (the tally's). */
function why(body: string): string {
  try {
    const detail = (JSON.parse(body) as { detail?: unknown }).detail;
    if (typeof detail === 'string') return detail.slice(0, 60);
    if (Array.isArray(detail))
      return [...new Set(detail.map((d: { type?: string; loc?: unknown[] }) => `${d.type}@${d.loc?.slice(1, 2).join('.')}`))].join(',');
  } catch {
    // not JSON
  }
  return '';
}

type Call = (method: string, path: string, json?: unknown) => Promise<{ status: number; text: string }>;

/** Sends `write`; answers which records it may change (thread ids, `assistant:<id>`, `item:<ns>/<key>`). */
async function send(call: Call, made: Made, w: Write): Promise<string[]> {
  const threadOf = async (n: number) => {
    if (made.threads.length === 0 || n >= made.threads.length + 2) {
      const created = await call('POST', '/threads', {});
      made.threads.push(JSON.parse(created.text).thread_id);
      return made.threads.at(-1)!;
    }
    return made.threads[n % made.threads.length];
  };
  const answered = (what: string, status: number, body: string) => {
    tally(`${what} ${status}${body.includes('__error__') ? ' __error__' : ''}${status >= 400 ? ` ${why(body)}` : ''}`);
    if (process.env.CAMPAIGN_PROBE && status >= 500) return void tally(`${what} ${status} ${body.slice(0, 300)}`);
    assert.ok(status < 500, `${what} answered ${status}: ${body.slice(0, 500)}`);
  };
  switch (w.op) {
    case 'createThread': {
      const res = await call('POST', '/threads', w.body);
      answered('POST /threads', res.status, res.text);
      if (res.status === 200) made.threads.push(JSON.parse(res.text).thread_id);
      return res.status === 200 ? [JSON.parse(res.text).thread_id] : [];
    }
    case 'patchThread': {
      const id = await threadOf(w.thread);
      const res = await call('PATCH', `/threads/${id}`, w.body);
      answered('PATCH /threads/{id}', res.status, res.text);
      return [id];
    }
    case 'run': {
      const id = await threadOf(w.thread);
      const res = await call('POST', `/threads/${id}/runs`, w.body);
      answered('POST /threads/{id}/runs', res.status, res.text);
      if (res.status === 200) {
        const run = JSON.parse(res.text).run_id as string;
        made.runs.set(id, [...(made.runs.get(id) ?? []), run]);
        const joined = await call('GET', `/threads/${id}/runs/${run}/join`);
        answered('GET join', joined.status, joined.text);
      }
      return [id];
    }
    case 'updateState': {
      const id = await threadOf(w.thread);
      const res = await call('POST', `/threads/${id}/state`, w.body);
      answered('POST /threads/{id}/state', res.status, res.text);
      return [id];
    }
    case 'putItem': {
      const res = await call('PUT', '/store/items', w.body);
      answered('PUT /store/items', res.status, res.text);
      const item = { namespace: w.body.namespace as string[], key: w.body.key as string };
      if (res.status < 300) made.items.push(item);
      return [`item:${JSON.stringify(item)}`];
    }
    case 'createAssistant': {
      const res = await call('POST', '/assistants', w.body);
      answered('POST /assistants', res.status, res.text);
      if (res.status === 200) made.assistants.push(JSON.parse(res.text).assistant_id);
      return res.status === 200 ? [`assistant:${JSON.parse(res.text).assistant_id}`] : [];
    }
    case 'createCron': {
      const id = await threadOf(w.thread);
      const res = await call('POST', `/threads/${id}/runs/crons`, w.body);
      answered('POST /threads/{id}/runs/crons', res.status, res.text);
      return [];
    }
  }
}

/** Every read a client or the dashboard makes of what was made: each must answer below 500. Returns what each record read as. */
async function readAll(call: Call, made: Made, touched: ReadonlySet<string>, last: boolean): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const read = async (key: string | null, method: string, path: string, json?: unknown) => {
    const res = await call(method, path, json);
    if (process.env.CAMPAIGN_PROBE && res.status >= 500) {
      tally(`READ ${method} ${path.replace(/[0-9a-f-]{36}/g, '{id}')} ${res.status} ${res.text.slice(0, 300)}`);
      return res;
    }
    assert.ok(res.status < 500, `${method} ${path} answered ${res.status}: ${res.text.slice(0, 500)}`);
    if (key) seen.set(key, `${res.status} ${res.text}`);
    return res;
  };
  await read(null, 'POST', '/threads/search', {});
  await read(null, 'POST', '/threads/search', { limit: 100, select: ['thread_id', 'status', 'values', 'interrupts'] });
  await read(null, 'POST', '/threads/count', {});
  for (const id of made.threads) {
    await read(id, 'GET', `/threads/${id}`);
    await read(`${id}/state`, 'GET', `/threads/${id}/state`);
    await read(`${id}/history`, 'POST', `/threads/${id}/history`, { limit: 10 });
    await read(null, 'POST', '/threads/search', { metadata: {}, ids: [id] });
    await read(`${id}/runs`, 'GET', `/threads/${id}/runs`);
    for (const run of made.runs.get(id) ?? []) {
      await read(`${id}/${run}`, 'GET', `/threads/${id}/runs/${run}`);
      // what only a write to its thread can change is read again after such a write (and at the end)
      if (!touched.has(id) && !last) continue;
      await read(null, 'GET', `/threads/${id}/runs/${run}/join`);
      await read(null, 'GET', `/threads/${id}/runs/${run}/stream`);
      await read(null, 'GET', `/threads/${id}/runs/${run}/trace`);
    }
  }
  const assistants = await read(null, 'POST', '/assistants/search', { limit: 100 });
  for (const a of JSON.parse(assistants.text) as { assistant_id: string }[]) {
    const key = made.assistants.includes(a.assistant_id) ? `assistant:${a.assistant_id}` : null;
    await read(key, 'GET', `/assistants/${a.assistant_id}`);
    // the dashboard's assistant page: after the write that made it, and at the end for all
    if (!last && !(key && touched.has(key))) continue;
    await read(null, 'GET', `/assistants/${a.assistant_id}/schemas`);
    await read(null, 'GET', `/assistants/${a.assistant_id}/graph`);
    await read(null, 'POST', `/assistants/${a.assistant_id}/versions`, {});
    await read(null, 'GET', `/assistants/${a.assistant_id}/metrics?window_s=3600`);
  }
  await read(null, 'POST', '/store/items/search', { limit: 100 });
  await read(null, 'POST', '/store/namespaces', {});
  for (const item of made.items) {
    const query = new URLSearchParams({ key: item.key });
    for (const part of item.namespace) query.append('namespace', part);
    await read(`item:${JSON.stringify(item)}`, 'GET', `/store/items?${query}`);
  }
  await read(null, 'POST', '/runs/crons/search', {});
  await read(null, 'GET', '/info');
  return seen;
}

export interface CampaignOptions {
  seed: number;
  /** How many sequences of writes. */
  numRuns: number;
  /** The most writes in a sequence. */
  maxWrites: number;
}

/** The campaign's options from CAMPAIGN_SEED and CAMPAIGN_RUNS, else these defaults. */
export function campaignOptions(defaults: CampaignOptions): CampaignOptions {
  const seed = process.env.CAMPAIGN_SEED;
  const runs = process.env.CAMPAIGN_RUNS;
  return { ...defaults, seed: seed ? Number(seed) : defaults.seed, numRuns: runs ? Number(runs) : defaults.numRuns };
}

/** Runs the campaign against `app`: fails with the shrunk sequence of writes and the seed to replay it. */
export async function runCampaign(app: InProcessApp, options: CampaignOptions): Promise<void> {
  const call: Call = async (method, path, json) => {
    const res = await app.api(path, { method, json, signal: AbortSignal.timeout(15_000) });
    return { status: res.status, text: await res.text() };
  };
  await fc.assert(
    fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: options.maxWrites }), async (writes) => {
      const made: Made = { threads: [], runs: new Map(), assistants: [], items: [] };
      let before = new Map<string, string>();
      for (const [i, w] of writes.entries()) {
        const touched = new Set(await send(call, made, w));
        const after = await readAll(call, made, touched, i === writes.length - 1);
        for (const [key, value] of before) {
          const owner = key.split('/')[0];
          if (touched.has(key) || touched.has(owner)) continue;
          assert.equal(after.get(key), value, `${key} changed after a write that did not name it: ${JSON.stringify(w).slice(0, 300)}`);
        }
        before = after;
      }
    }),
    { seed: options.seed, numRuns: options.numRuns, endOnFailure: process.env.CAMPAIGN_SHRINK !== '1' },
  );
  if (process.env.CAMPAIGN_TRACE === '1')
    console.log(
      [...tallies]
        .sort()
        .map(([what, n]) => `${n}\t${what}`)
        .join('\n'),
    );
  tallies.clear();
}
