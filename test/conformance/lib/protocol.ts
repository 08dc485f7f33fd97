// The thread protocol's commands and events (spec/protocol.openrpc.json) through the
// agent server's protocol routes: valid params (each method's examples, then params generated
// from its schemas) get a success whose result fits the method's result schema, or an error
// envelope naming one of the method's `x-protocol-errors`, or a status sendProtocolCommand
// documents; invalid params get `invalid_argument`; a method the document does not name gets
// `unknown_command` (`no_such_run` before a run, as upstream); every event the thread's
// stream sends fits the Event schema; and the WebSocket (openThreadEventSocket) upgrades and
// answers a command in the same envelope. Commands go to one thread the suite starts a run on
// (with an assistant the server lists), so the session commands reach their params.
import { describe, it, before } from 'node:test';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import fc from 'fast-check';
import WebSocket from 'ws';
import { loadDocument } from '../../../generated/protocol/document.gen.js';
import * as paramValidators from '../../../generated/protocol/params.validators.gen.js';
import * as resultValidators from '../../../generated/protocol/response.validators.gen.js';
import { CommandReply, Event } from '../../../generated/protocol/components.validators.gen.js';
import type { Validator } from '../../../src/runtime/contract.ts';
import { operationById, type Json } from './contract.ts';
import { conformanceProblems } from './checks.ts';
import { coverage } from './coverage.ts';
import { curl, describeResponse, requestFor, send, wireHeaders, type HttpResponse, type Target } from './http.ts';
import { jsonMutations } from './mutations.ts';
import { assertProperty, Violation } from './property.ts';
import { schemaArbitrary } from './schemaArbitrary.ts';
import type { SuiteContext } from './suiteContext.ts';

const doc: Json = loadDocument();
const commandOp = operationById.get('sendProtocolCommand')!;
const streamOp = operationById.get('streamThreadEvents')!;
const socketOp = operationById.get('openThreadEventSocket')!;
/** Few samples each: a command is cheap, and run.start queues a real run per sample. */
const SAMPLES = 4;
const CHANNELS = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input'];

interface ProtocolMethod {
  name: string;
  errors: string[];
  paramsSchema: Json;
  examples: Record<string, unknown>[];
  params: Validator;
  result: Validator;
}

const key = (name: string) => name.replace(/[^A-Za-z0-9_]/g, '_');
const methods: ProtocolMethod[] = doc.methods.map((m: Json) => ({
  name: m.name,
  errors: m['x-protocol-errors'] ?? [],
  paramsSchema: {
    type: 'object',
    properties: Object.fromEntries(m.params.map((p: Json) => [p.name, p.schema])),
    required: m.params.filter((p: Json) => p.required).map((p: Json) => p.name),
  },
  examples: (m.examples ?? []).map((e: Json) => Object.fromEntries(e.params.map((p: Json) => [p.name, p.value]))),
  params: (paramValidators as Record<string, Validator>)[key(m.name)]!,
  result: (resultValidators as Record<string, Validator>)[key(m.name)]!,
}));

/** What is wrong with the answer to a command of `method` (expected: the error names it may get, when not a success). */
function replyProblems(res: HttpResponse, method: ProtocolMethod | undefined, id: number, expected?: string[]): string[] {
  const problems = conformanceProblems(commandOp, res);
  if (res.status !== 200 || problems.length) return problems;
  const reply = res.json as Json;
  if (!CommandReply(reply)) return [`not a CommandReply: ${JSON.stringify(CommandReply.errors?.slice(0, 3))}`];
  if (reply.id !== id) problems.push(`answered id ${reply.id}, sent ${id}`);
  if (reply.type === 'success') {
    if (expected) problems.push(`a success where ${expected.join(' or ')} was expected`);
    else if (method && !method.result(reply.result))
      problems.push(`${method.name} result does not fit its schema: ${JSON.stringify(method.result.errors?.slice(0, 3))}`);
  } else {
    const allowed = expected ?? method?.errors ?? [];
    if (!allowed.includes(reply.error)) problems.push(`error ${reply.error} (${reply.message}), documented: ${allowed.join(', ')}`);
  }
  return problems;
}

export function defineProtocolProperties(ctx: () => SuiteContext): void {
  describe('the thread protocol (spec/protocol.openrpc.json) on POST /threads/{thread_id}/commands and its WebSocket', () => {
    let threadId: string;
    let assistantId: string;
    let nextId = 1;
    const command = (method: string, params: unknown) => {
      const id = nextId++;
      return { id, req: requestFor(commandOp, { path: { thread_id: threadId }, body: { kind: 'json', value: { id, method, params } } }) };
    };
    const exchange = async (target: Target, method: string, params: unknown, m: ProtocolMethod | undefined, expected?: string[]) => {
      const { id, req } = command(method, params);
      const res = await send(target, req);
      const problems = replyProblems(res, m, id, expected);
      if (problems.length)
        throw new Violation([`${method} ${JSON.stringify(params)}:`, ...problems.map((p) => `  ${p}`)], curl(target, req), describeResponse(res));
      return res.json as Json;
    };

    before(async () => {
      const { target } = ctx();
      threadId = randomUUID();
      const found = await send(target, requestFor(operationById.get('searchAssistants')!, { body: { kind: 'json', value: { limit: 1 } } }));
      assistantId = ((found.json as Json[] | undefined)?.[0]?.graph_id as string | undefined) ?? 'agent';
      // a run on the thread, so that the session commands reach their params
      await exchange(target, 'run.start', { assistant_id: assistantId, input: {} }, methods[0]);
    });

    for (const m of methods) {
      it(`${m.name}: valid params get its result or one of its documented errors`, async () => {
        const { target } = ctx();
        // run.start keeps to the thread's assistant (another is invalid_argument, which is documented too)
        const bound = (params: Record<string, unknown>) => (m.name === 'run.start' ? { ...params, assistant_id: assistantId } : params);
        const arb = (schemaArbitrary(doc, m.paramsSchema, { useExamples: true }) as fc.Arbitrary<Record<string, unknown>>)
          .map(bound)
          .filter((p) => m.params(structuredClone(p)));
        await assertProperty(`${m.name} (valid)`, arb, (params) => exchange(target, m.name, params, m).then(() => {}), SAMPLES, m.examples.map(bound));
      });

      it(`${m.name}: invalid params get invalid_argument`, async () => {
        const { target } = ctx();
        // (a reconnect is not_supported whatever its params, as upstream answers it)
        const expected = m.errors.includes('invalid_argument') ? ['invalid_argument'] : m.errors;
        const invalid = m.examples.flatMap((e) => jsonMutations(doc, m.paramsSchema, e, 'params')).filter((x) => !m.params(structuredClone(x.value)));
        if (!invalid.length) return;
        await assertProperty(
          `${m.name} (invalid)`,
          fc.constantFrom(...invalid),
          ({ value }) => exchange(target, m.name, value, m, expected).then(() => {}),
          SAMPLES,
        );
      });
    }

    it('a method the document does not name gets unknown_command', async () => {
      await exchange(ctx().target, 'no.such.method', {}, undefined, ['unknown_command']);
    });

    it("every event of the thread's stream fits the Event schema", async () => {
      const { target } = ctx();
      const req = requestFor(streamOp, { path: { thread_id: threadId }, body: { kind: 'json', value: { channels: CHANNELS, since: 0 } } });
      const res = await send(target, req);
      const problems = conformanceProblems(streamOp, res);
      const events = (res.events ?? []).map((e) => JSON.parse(e.data) as Json);
      if (!events.length) problems.push('the stream sent no event for a thread with a run');
      for (const event of events) if (!Event(event)) problems.push(`${JSON.stringify(event).slice(0, 400)}: ${JSON.stringify(Event.errors?.slice(0, 3))}`);
      if (problems.length) throw new Violation(problems, curl(target, req), describeResponse(res));
    });

    it('the WebSocket upgrades (101) and answers a command in the same envelope', async () => {
      const { target } = ctx();
      const req = requestFor(socketOp, { path: { thread_id: threadId } });
      const headers = wireHeaders(target, req);
      const ws = new WebSocket(`${target.url.replace(/^http/, 'ws')}/threads/${threadId}/stream/events`, { headers });
      const upgraded = new Promise<number>((resolve) => ws.once('upgrade', (res) => resolve(res.statusCode ?? 0)));
      await once(ws, 'open');
      coverage.record(socketOp.operationId, String(await upgraded));
      const reply = once(ws, 'message');
      ws.send(JSON.stringify({ id: 1, method: 'state.get', params: { keys: 'not a list' } }));
      const [data] = await reply;
      ws.close();
      const message = JSON.parse(String(data)) as Json;
      const problems = CommandReply(message) ? [] : [`not a CommandReply: ${JSON.stringify(CommandReply.errors?.slice(0, 3))}`];
      if (message.type !== 'error' || message.error !== 'invalid_argument' || message.id !== 1)
        problems.push(`expected invalid_argument for id 1, got ${JSON.stringify(message)}`);
      if (problems.length)
        throw new Violation(problems, `websocat ${target.url.replace(/^http/, 'ws')}/threads/${threadId}/stream/events`, JSON.stringify(message));
    });
  });
}
