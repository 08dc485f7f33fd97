// The OpenRPC methods behind the JSON-RPC operation: valid params (generated from each
// method's param schemas) must get a result that validates against the method's result
// schema, or one of the method's documented errors; invalid params must get -32602; broken
// envelopes -32700/-32600/-32601 by the JSON-RPC 2.0 rules; a request without id answered with id null.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolve, rpc, rpcOperations, type Operation, type RpcMethod } from './contract.ts';
import { requestFor, send, curl, describeResponse, type HttpRequest, type HttpResponse, type Target } from './http.ts';
import { schemaArbitrary } from './schemaArbitrary.ts';
import { jsonMutations } from './mutations.ts';
import { assertProperty, RUNS, Violation } from './property.ts';
import { added, snapshot } from './snapshot.ts';
import { isDotSegment, type Binding } from './generators.ts';
import type { ResourcePool } from './links.ts';
import { conformanceProblems } from './checks.ts';
import { rpcProblems } from './rpcProblems.ts';
import type { SuiteContext } from './suiteContext.ts';

type Envelope = Record<string, unknown>;

export function paramsArbitrary(m: RpcMethod, pool: Binding[]): fc.Arbitrary<Record<string, unknown>> {
  const generated = schemaArbitrary(rpc.doc, m.paramsSchema, { useExamples: true }) as fc.Arbitrary<Record<string, unknown>>;
  const choices = [{ weight: 2, arbitrary: generated }];
  if (m.examples.length) choices.push({ weight: 1, arbitrary: fc.constantFrom(...m.examples.map((e) => e.params)) });
  if (pool.length) choices.push({ weight: 3, arbitrary: fc.tuple(generated, fc.constantFrom(...pool)).map(([p, b]) => ({ ...p, ...b })) });
  return fc.oneof(...choices).filter((p) => m.validators.params(structuredClone(p)));
}

/**
 * Deterministic params run first: each spec example, each example with one optional
 * field (top level, or one level down in an object param) set to a value sampled from its
 * schema — so each optional field's effect is seen on its own at least once — and each
 * example with a list of a union (a message's parts) holding one member of each kind.
 */
export function edgeParams(m: RpcMethod): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const sample = (schema: unknown, seed: number) => fc.sample(schemaArbitrary(rpc.doc, schema), { numRuns: 1, seed })[0];
  for (const [i, example] of m.examples.entries()) {
    out.push(example.params);
    for (const p of m.params) {
      if (!(p.name in example.params)) out.push({ ...example.params, [p.name]: sample(p.schema, i) });
      const s = resolve(rpc.doc, p.schema);
      const value = example.params[p.name];
      if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
      for (const [k, ks] of Object.entries<unknown>(s?.properties ?? {})) {
        if (!(k in value) && !(s.required ?? []).includes(k)) out.push({ ...example.params, [p.name]: { ...value, [k]: sample(ks, i) } });
        // a list of a union (a message's parts: text, file, data): once with each kind, at its schema's example
        const items = resolve(rpc.doc, resolve(rpc.doc, ks)?.items);
        for (const branch of items?.oneOf ?? items?.anyOf ?? []) {
          const kind = resolve(rpc.doc, branch);
          if (Array.isArray(kind?.examples) && kind.examples.length && Array.isArray((value as Record<string, unknown>)[k]))
            out.push({ ...example.params, [p.name]: { ...value, [k]: [kind.examples[0]] } });
        }
      }
    }
  }
  return out.filter((p) => m.validators.params(structuredClone(p)));
}

const idArbitrary = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 1_000_000 }));

/** The path parameters of the JSON-RPC operation: a known assistant when the pool has one. */
export function endpointPath(op: Operation, pool: ResourcePool): Record<string, unknown> {
  const known = pool.get(op.operationId)[0];
  return Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, known?.[p.name] ?? p.example]));
}

/** A raw envelope: its text, and its Content-Type (application/json unless given; null sends none). */
type RawEnvelope = { raw: string; contentType?: string | null };

export function rpcRequest(op: Operation, path: Record<string, unknown>, envelope: Envelope | RawEnvelope): HttpRequest {
  const body =
    'raw' in envelope
      ? {
          kind: 'raw' as const,
          text: envelope.raw as string,
          contentType: envelope.contentType === null ? undefined : ((envelope.contentType as string | undefined) ?? 'application/json'),
        }
      : { kind: 'json' as const, value: envelope };
  return requestFor(op, { path, body, headers: { Accept: 'application/json, text/event-stream' } });
}

async function exchange(
  target: Target,
  op: Operation,
  req: HttpRequest,
  m: RpcMethod | undefined,
  id: unknown,
  expect?: (string | number)[],
): Promise<HttpResponse> {
  const res = await send(target, req);
  const problems = rpcProblems(op, m, id, res, expect);
  if (problems.length) throw new Violation(problems, curl(target, req), describeResponse(res));
  return res;
}

/** Broken envelopes and what JSON-RPC 2.0 says they get; applied to a valid request. */
const envelopeMutations: { what: string; expect: number; mutate: (e: Envelope) => Envelope | RawEnvelope }[] = [
  { what: 'malformed JSON', expect: -32700, mutate: (e) => ({ raw: JSON.stringify(e).slice(0, -1) }) },
  { what: 'a JSON value that is not a request object', expect: -32600, mutate: () => ({ raw: '42' }) },
  { what: 'an empty batch', expect: -32600, mutate: () => ({ raw: '[]' }) },
  { what: 'jsonrpc is not "2.0"', expect: -32600, mutate: (e) => ({ ...e, jsonrpc: '1.0' }) },
  { what: 'jsonrpc missing', expect: -32600, mutate: ({ jsonrpc: _, ...e }) => e },
  { what: 'method is not a string', expect: -32600, mutate: (e) => ({ ...e, method: 42 }) },
  { what: 'id is an object', expect: -32600, mutate: (e) => ({ ...e, id: { nested: true } }) },
  { what: 'unknown method', expect: -32601, mutate: (e) => ({ ...e, method: `${e.method}/no-such-method` }) },
  { what: 'wrong content type (text/plain)', expect: -32600, mutate: (e) => ({ raw: JSON.stringify(e), contentType: 'text/plain' }) },
  { what: 'no content type', expect: -32600, mutate: (e) => ({ raw: JSON.stringify(e), contentType: null }) },
  { what: 'params by position', expect: -32602, mutate: (e) => ({ ...e, params: [e.params] }) },
  { what: 'params is a string', expect: -32602, mutate: (e) => ({ ...e, params: 'params' }) },
];

export function defineRpcProperties(ctx: () => SuiteContext): void {
  for (const op of rpcOperations) {
    describe(`JSON-RPC methods on ${op.method} ${op.path}`, () => {
      for (const m of rpc.methods) {
        it(`${m.name}: valid params get a result or a documented error`, async () => {
          const { target, pool } = ctx();
          // mostly a known assistant; sometimes any id the path schema allows (usually unknown: 404)
          const pathParams = op.parameters.filter((p) => p.in === 'path');
          const other = fc.record(
            Object.fromEntries(
              pathParams.map((p) => [p.name, schemaArbitrary(op.doc, p.schema).filter((v) => String(v).trim().length > 0 && !isDotSegment(v))]),
            ),
          );
          const arb = fc.record({
            id: idArbitrary,
            params: paramsArbitrary(m, pool.get(m.name)),
            unknown: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: other }),
          });
          await assertProperty(
            `${m.name}`,
            arb,
            async ({ id, params, unknown }) => {
              const path = unknown ?? endpointPath(op, pool);
              const req = rpcRequest(op, path, { jsonrpc: '2.0', id, method: m.name, params });
              const res = await exchange(target, op, req, m, id);
              pool.recordRpc(m, params, res);
            },
            RUNS * 3,
            // the edges, then the first with a known resource (a task an earlier method made: its result)
            [
              ...edgeParams(m),
              ...edgeParams(m)
                .slice(0, 1)
                .flatMap((params) =>
                  pool
                    .get(m.name)
                    .slice(0, 1)
                    .map((known) => ({ ...params, ...known })),
                ),
            ]
              .filter((params) => m.validators.params(structuredClone(params)))
              .map((params) => ({ id: 'edge', params, unknown: undefined })),
          ); // cheap calls; each documented error needs its own unlikely input
        });

        it(`${m.name}: invalid params get -32602 and change nothing`, async () => {
          const { target, pool } = ctx();
          const arb = fc
            .tuple(paramsArbitrary(m, pool.get(m.name)), fc.nat(), idArbitrary)
            .map(([params, n, id]) => {
              const all = jsonMutations(rpc.doc, m.paramsSchema, params, 'params').filter((x) => !m.validators.params(structuredClone(x.value)));
              return all.length ? { id, ...all[n % all.length] } : undefined;
            })
            .filter((x): x is { id: string | number; description: string; value: unknown } => x !== undefined);
          const before = await snapshot(target, pool);
          await assertProperty(`${m.name} (invalid params)`, arb, async ({ id, description, value }) => {
            const req = rpcRequest(op, endpointPath(op, pool), { jsonrpc: '2.0', id, method: m.name, params: value });
            const res = await send(target, req);
            const problems = rpcProblems(op, m, id, res, [-32602]);
            if (problems.length) throw new Violation([`${description}:`, ...problems.map((p) => `  ${p}`)], curl(target, req), describeResponse(res));
          });
          assert.deepEqual(added(before, await snapshot(target, pool)), [], `${m.name}: requests with invalid params stored something`);
        });
      }

      for (const mutation of envelopeMutations) {
        it(`broken envelope, ${mutation.what}: ${mutation.expect}`, async () => {
          const { target, pool } = ctx();
          const arb = fc
            .tuple(fc.constantFrom(...rpc.methods), idArbitrary)
            .chain(([method, id]) => paramsArbitrary(method, pool.get(method.name)).map((params) => ({ method, id, params })));
          await assertProperty(
            `JSON-RPC envelope, ${mutation.what}`,
            arb,
            async ({ method, id, params }) => {
              const envelope = mutation.mutate({ jsonrpc: '2.0', id, method: method.name, params });
              const req = rpcRequest(op, endpointPath(op, pool), envelope);
              const res = await send(target, req);
              // a refused content type may be answered before the id is read: either id is fine
              const sentId = /content type/.test(mutation.what) ? undefined : 'raw' in envelope || typeof (envelope as Envelope).id === 'object' ? null : id;
              const problems = rpcProblems(op, undefined, sentId, res, [mutation.expect]);
              if (problems.length) throw new Violation([`${mutation.what}:`, ...problems.map((p) => `  ${p}`)], curl(target, req), describeResponse(res));
            },
            Math.max(3, Math.round(RUNS / 5)),
          );
        });
      }

      it('a request without id is answered like any other, with id null (A2A defines no notifications)', async () => {
        const { target, pool } = ctx();
        const m = rpc.methods.find((x) => !x.streaming) ?? rpc.methods[0];
        await assertProperty(
          'JSON-RPC request without id',
          paramsArbitrary(m, pool.get(m.name)),
          async (params) => {
            const req = rpcRequest(op, endpointPath(op, pool), { jsonrpc: '2.0', method: m.name, params });
            const res = await send(target, req);
            const problems = res.status === 200 ? rpcProblems(op, m, null, res) : conformanceProblems(op, res);
            if (res.status === 200 && res.json === undefined && !res.events) problems.push('expected a JSON-RPC response with id null, got no body');
            if (problems.length) throw new Violation(problems, curl(target, req), describeResponse(res));
          },
          3,
        );
      });
    });
  }
}
