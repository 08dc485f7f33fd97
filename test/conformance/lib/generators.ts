// Valid requests for any operation, generated from its parameter and body schemas and
// filtered through the spec's own request validators, so "valid" means what the spec says.
import fc from 'fast-check';
import { resolve, type Operation, type Parameter } from './contract.ts';
import { requestFor, wireQuery, type HttpRequest } from './http.ts';
import { schemaArbitrary } from './schemaArbitrary.ts';

/** Parameter values known to name existing resources (filled by following the spec's links). */
export type Binding = Record<string, unknown>;

const HEADER_SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

function paramArbitrary(op: Operation, where: Parameter['in']): fc.Arbitrary<Record<string, unknown>> {
  const params = op.parameters.filter((p) => p.in === where);
  if (params.length === 0) return fc.constant({});
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of params) {
    let arb = schemaArbitrary(op.doc, p.schema, { useExamples: true });
    // generated values first: a failure found with an example can still shrink to a small generated value
    if (p.examples.length) arb = fc.oneof({ withCrossShrink: true }, { weight: 3, arbitrary: arb }, { weight: 1, arbitrary: fc.constantFrom(...p.examples) });
    if (where === 'header') arb = arb.map(String).filter((s) => HEADER_SAFE.test(s));
    // "." and ".." (however encoded: %2E too) are dot-segments to every WHATWG URL client,
    // fetch included, which folds them away: the request would name another operation
    if (where === 'path') arb = arb.filter((v) => String(v).length > 0 && !isDotSegment(v));
    model[p.name] = arb;
  }
  return fc.record(model, { requiredKeys: params.filter((p) => p.required).map((p) => p.name) });
}

export function bodyArbitrary(op: Operation): fc.Arbitrary<unknown> | undefined {
  if (!op.body) return undefined;
  const generated = schemaArbitrary(op.doc, op.body.schema, { useExamples: true });
  const value = op.body.examples.length
    ? fc.oneof({ withCrossShrink: true }, { weight: 2, arbitrary: generated }, { weight: 1, arbitrary: fc.constantFrom(...op.body.examples) })
    : generated;
  return op.body.required ? value : fc.option(value, { nil: undefined, freq: 4 });
}

/** Does the spec accept this request? Uses the generated validators the way the server reads the wire. */
export function acceptedBySpec(op: Operation, req: HttpRequest): boolean {
  const v = op.validators;
  const strings = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, x]) => [k, String(x)]));
  if (v.path && !v.path(strings(req.path))) return false;
  if (v.query && !v.query(wireQuery(req.query))) return false;
  if (v.headers && !v.headers(Object.fromEntries(Object.entries(req.headers).map(([k, x]) => [k.toLowerCase(), x])))) return false;
  if (op.body) {
    if (req.body === undefined) return !op.body.required;
    if (req.body.kind === 'raw') return false;
    if (v.body && !v.body(structuredClone(req.body.value))) return false;
  }
  return true;
}

/**
 * Valid requests for `op`. Path parameters come from `pool` (resources known to exist) as
 * often as from their schemas, so handlers see real resources as well as unknown ones.
 */
export function validRequest(op: Operation, pool: Binding[] = []): fc.Arbitrary<HttpRequest> {
  const body = bodyArbitrary(op) ?? fc.constant(undefined);
  let path = paramArbitrary(op, 'path');
  let query = paramArbitrary(op, 'query');
  if (pool.length) {
    const pick = fc.constantFrom(...pool);
    const names = new Set(op.parameters.map((p) => p.name));
    const known = (where: Parameter['in'], b: Binding) =>
      Object.fromEntries(Object.entries(b).filter(([k]) => names.has(k) && op.parameters.find((p) => p.name === k)!.in === where));
    path = fc.oneof(
      { withCrossShrink: true },
      { weight: 1, arbitrary: path },
      { weight: 3, arbitrary: fc.tuple(path, pick).map(([p, b]) => ({ ...p, ...known('path', b) })) },
    );
    query = fc.oneof(
      { withCrossShrink: true },
      { weight: 2, arbitrary: query },
      { weight: 1, arbitrary: fc.tuple(query, pick).map(([q, b]) => ({ ...q, ...known('query', b) })) },
    );
  }
  return fc
    .record({ path, query, headers: paramArbitrary(op, 'header') as fc.Arbitrary<Record<string, string>>, body })
    .map(({ path, query, headers, body }) => requestFor(op, { path, query, headers, body: body === undefined ? undefined : { kind: 'json', value: body } }))
    .filter((req) => acceptedBySpec(op, req));
}

/** Sample values that exercise a parameter schema's edges: enum members, both booleans, the bounds, the examples. */
function edgeValues(op: Operation, p: Parameter): unknown[] {
  const s = resolve(op.doc, p.schema) ?? {};
  const values: unknown[] = [...p.examples];
  if (Array.isArray(s.enum)) values.push(...s.enum);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('boolean')) values.push(true, false);
  const items = resolve(op.doc, s.items);
  if (types.includes('array') && Array.isArray(items?.enum)) values.push(...items.enum.map((v: unknown) => [v]));
  if (s.minimum !== undefined) values.push(s.minimum);
  if (s.maximum !== undefined) values.push(s.maximum);
  for (const b of s.anyOf ?? s.oneOf ?? []) {
    const r = resolve(op.doc, b);
    if (Array.isArray(r?.enum)) values.push(...r.enum);
    if (r?.type === 'boolean') values.push(true, false);
  }
  return [...new Set(values.map((v) => JSON.stringify(v)))].map((v) => JSON.parse(v));
}

/**
 * Deterministic valid requests run before the random ones: a known resource (or the
 * parameter examples) and the first body example, alone and with each optional query
 * parameter set to each of its edge values. The variants come first, the plain request
 * last, so a destructive plain request does not spoil them.
 */
export function edgeRequests(op: Operation, pool: Binding[] = []): HttpRequest[] {
  const binding = pool[0] ?? {};
  const path = Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, binding[p.name] ?? p.example]));
  const body = op.body?.examples[0];
  // required query parameters at their example (or first edge value): without them no edge request would be valid
  const required = Object.fromEntries(
    op.parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, binding[p.name] ?? p.example ?? edgeValues(op, p)[0]]),
  );
  const base = requestFor(op, { path, query: required, body: body === undefined ? undefined : { kind: 'json', value: body } });
  const variants: HttpRequest[] = [];
  for (const p of op.parameters.filter((x) => x.in === 'query' && !x.required)) {
    for (const v of edgeValues(op, p)) variants.push({ ...base, query: { ...required, [p.name]: v } });
  }
  // optional headers too (Prefer: return=minimal answers 204): each documented value once
  const headerVariants: HttpRequest[] = [];
  for (const p of op.parameters.filter((x) => x.in === 'header' && !x.required)) {
    for (const v of edgeValues(op, p)) if (HEADER_SAFE.test(String(v))) headerVariants.push({ ...base, headers: { [p.name]: String(v) } });
  }
  // and once for a resource that was never created (path values sampled from their schemas), with a
  // seed of this operation's own: with one seed for all, every operation named the same "unknown"
  // thread, which an earlier one had created (a run with if_not_exists: create), so a later
  // operation's 404 (patchThreadState's) was left to the fuzzer's luck
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const unknown = pathParams.length
    ? [
        {
          ...base,
          path: Object.fromEntries(
            pathParams.map((p) => [
              p.name,
              fc.sample(
                schemaArbitrary(op.doc, p.schema).filter((v) => /^[\w-]+$/.test(String(v))),
                { numRuns: 1, seed: seedOf(op) },
              )[0],
            ]),
          ),
        },
      ]
    : [];
  // and once with the body's ids (`*_id`, `*_ids` at the top level) naming nothing: an unknown assistant or thread (404)
  const nobody = fc.sample(fc.uuid({ version: 4 }), { numRuns: 1, seed: 13 })[0];
  const bodyIds = body && typeof body === 'object' && !Array.isArray(body) ? Object.entries(body as Record<string, unknown>) : [];
  const renamed = bodyIds.flatMap(([k, v]): [string, unknown][] =>
    k.endsWith('_id') && typeof v === 'string' ? [[k, nobody]] : k.endsWith('_ids') && Array.isArray(v) ? [[k, [nobody]]] : [],
  );
  const unknownInBody = renamed.length ? [{ ...base, body: { kind: 'json' as const, value: { ...(body as object), ...Object.fromEntries(renamed) } } }] : [];
  // every further body example once, so each documented case is exercised on every run rather than when the fuzzer happens to pick it
  const otherBodies = (op.body?.examples ?? []).slice(1).map((value) => ({ ...base, body: { kind: 'json' as const, value } }));
  // once with the path parameters at their documented examples, when those differ from the pool's binding: the examples name
  // well-known resources (the system assistant `agent`, for one), so their documented refusals (409) are reached deterministically
  const examplePath = Object.fromEntries(pathParams.map((p) => [p.name, p.example]));
  const atExamples =
    pathParams.length && pathParams.every((p) => p.example !== undefined) && pathParams.some((p) => examplePath[p.name] !== base.path[p.name])
      ? [{ ...base, path: examplePath }]
      : [];
  return [...variants.slice(0, 12), ...headerVariants, ...unknown, ...unknownInBody, ...otherBodies, ...atExamples, base].filter(
    (r) => Object.values(r.path).every((v) => v !== undefined) && acceptedBySpec(op, r),
  );
}

/** A path value a URL client cannot send as itself: "." or ".." in any case or encoding. */
export function isDotSegment(value: unknown): boolean {
  return /^(\.|%2e){1,2}$/i.test(String(value));
}

/** A seed of the operation's own (its operationId hashed), stable from run to run. */
function seedOf(op: Operation): number {
  let hash = 11;
  for (const char of op.operationId) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}
