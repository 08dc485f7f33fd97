// Invalid requests: mutations of valid ones, chosen by walking the request against the
// operation's schemas — wrong types, missing required fields, out-of-range numbers, bad
// formats and uuids, unknown enum values, over-long strings, unknown fields, malformed
// JSON (all 422), a body with a wrong or no content type (415) — or both 400 where the operation answers google.rpc.Status (refusalStatuses). A mutation is kept only if
// the spec's validators reject it.
import fc from 'fast-check';
import { refusalStatuses, resolve, type Json, type Operation } from './contract.ts';
import { acceptedBySpec, validRequest, type Binding } from './generators.ts';
import { bodyText, formFields, takesForm, type HttpRequest } from './http.ts';

export interface Mutation {
  /** What was broken, e.g. `body.limit: out of range (1001)`. */
  description: string;
  request: HttpRequest;
  /** What is wrong: the request's content, or the body's media type (not application/json). */
  kind: 'invalid' | 'mediaType';
  /** The status the spec gives it (refusalStatuses: 422 or 415 on most operations). */
  expect: number;
}

type Candidate = { what: string; value: unknown };

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
const allowedTypes = (s: Json): string[] | null => (s.type === undefined ? null : Array.isArray(s.type) ? s.type : [s.type]);

/** Values that break `schema0`, each with a short reason; the caller re-checks against the validators. */
export function invalidValues(doc: Json, schema0: Json, wire: 'json' | 'text'): Candidate[] {
  const s = resolve(doc, schema0);
  if (!s || typeof s !== 'object') return [];
  const out: Candidate[] = [];
  const types = allowedTypes(s);
  if (wire === 'json') {
    for (const v of [42, 1.5, 'not-the-right-type', true, null, [1], { unexpected: 1 }]) {
      if (types && !types.includes(typeOf(v)) && !(typeOf(v) === 'integer' && types.includes('number')))
        out.push({ what: `wrong type (${JSON.stringify(v)})`, value: v });
    }
  } else if (types && !types.includes('string')) {
    if (types.includes('integer') || types.includes('number')) out.push({ what: 'wrong type ("abc")', value: 'abc' });
    if (types.includes('integer')) out.push({ what: 'wrong type ("1.5")', value: '1.5' });
    if (types.includes('boolean')) out.push({ what: 'wrong type ("maybe")', value: 'maybe' });
  }
  if (Array.isArray(s.enum))
    out.push({ what: 'unknown enum value', value: wire === 'json' && s.enum.every((e: unknown) => typeof e !== 'string') ? 987654 : '__not_in_enum__' });
  if ('const' in s) out.push({ what: 'not the constant', value: typeof s.const === 'string' ? `${s.const}_x` : '__not_const__' });
  const num = (n: number) => (wire === 'json' ? n : String(n));
  if (s.minimum !== undefined) out.push({ what: `below minimum (${s.minimum - 1})`, value: num(s.minimum - 1) });
  if (s.maximum !== undefined) out.push({ what: `above maximum (${s.maximum + 1})`, value: num(s.maximum + 1) });
  if (s.exclusiveMinimum !== undefined) out.push({ what: `not above exclusiveMinimum (${s.exclusiveMinimum})`, value: num(s.exclusiveMinimum) });
  if (s.exclusiveMaximum !== undefined) out.push({ what: `not below exclusiveMaximum (${s.exclusiveMaximum})`, value: num(s.exclusiveMaximum) });
  if (types?.includes('integer') && wire === 'json') out.push({ what: 'not an integer (1.5)', value: 1.5 });
  if (s.maxLength !== undefined) out.push({ what: `longer than maxLength ${s.maxLength}`, value: 'x'.repeat(s.maxLength + 1) });
  if (s.minLength !== undefined && s.minLength > 0) out.push({ what: `shorter than minLength ${s.minLength}`, value: 'x'.repeat(s.minLength - 1) });
  if (s.format === 'uuid') out.push({ what: 'bad uuid', value: 'not-a-uuid' }, { what: 'bad uuid (non-hex)', value: 'g2e1c0b9-4a5f-4e6d-8c7b-9a0f1e2d3c4b' });
  if (s.format === 'date-time') out.push({ what: 'bad date-time', value: 'yesterday at noon' });
  if (s.format === 'uri') out.push({ what: 'bad uri', value: 'not a uri' });
  if (s.pattern) out.push({ what: `does not match ${s.pattern}`, value: '!! not matching !!' });
  if (s.maxItems !== undefined && wire === 'json')
    out.push({ what: `more than maxItems ${s.maxItems}`, value: Array.from({ length: s.maxItems + 1 }, (_, i) => i) });
  return out;
}

function setAt(value: unknown, path: (string | number)[], replacement: unknown, remove = false): unknown {
  if (path.length === 0) return replacement;
  const copy: any = structuredClone(value);
  let node = copy;
  for (const part of path.slice(0, -1)) node = node[part];
  const last = path[path.length - 1];
  if (remove) delete node[last];
  else node[last] = replacement;
  return copy;
}

type Site = { what: string; path: (string | number)[]; value?: unknown; remove?: boolean };

/** Walks a JSON value with its schema and lists the mutations that apply at each node. */
function bodyMutations(doc: Json, schema0: Json, value: unknown, path: (string | number)[], depth: number, out: Site[]): void {
  if (depth > 6) return;
  let s = resolve(doc, schema0);
  if (!s || typeof s !== 'object') return;
  const where = ['body', ...path].join('.');
  for (const c of invalidValues(doc, s, 'json')) out.push({ what: `${where}: ${c.what}`, path, value: c.value });
  // descend through a nullable wrapper (`anyOf: [X, {type: null}]`) when the value is not null
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    const nonNull = branches.filter((b: Json) => resolve(doc, b)?.type !== 'null');
    if (nonNull.length !== 1 || value === null) return;
    s = resolve(doc, nonNull[0]);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const props: Record<string, Json> = s.properties ?? {};
    for (const name of s.required ?? [])
      if (name in (value as object)) out.push({ what: `${where}: missing required field ${name}`, path: [...path, name], remove: true });
    if (s.additionalProperties === false) out.push({ what: `${where}: unknown field`, path: [...path, 'unexpected_field_x'], value: 1 });
    for (const [name, ps] of Object.entries(props)) {
      if (name in (value as object)) bodyMutations(doc, ps, (value as any)[name], [...path, name], depth + 1, out);
      else for (const c of invalidValues(doc, ps, 'json')) out.push({ what: `${where}.${name}: ${c.what}`, path: [...path, name], value: c.value });
    }
  }
  if (Array.isArray(value) && value.length > 0 && s.items) bodyMutations(doc, s.items, value[0], [...path, 0], depth + 1, out);
}

/** Invalid variants of a JSON value under `schema`, each with what was broken (re-check them against a validator). */
export function jsonMutations(doc: Json, schema: Json, value: unknown, label = 'body'): { description: string; value: unknown }[] {
  const sites: Site[] = [];
  bodyMutations(doc, schema, value, [], 0, sites);
  return sites.map((site) => ({ description: site.what.replace(/^body/, label), value: setAt(value, site.path, site.value, site.remove) }));
}

/** Every invalid variant of `req` this walk can find (each one rejected by the spec's validators). */
export function mutationsOf(op: Operation, req: HttpRequest): Mutation[] {
  const out: Mutation[] = [];
  const statuses = refusalStatuses(op);
  const push = (description: string, request: HttpRequest, certain = false, kind: Mutation['kind'] = 'invalid') => {
    if (certain || !acceptedBySpec(op, request)) out.push({ description, request, kind, expect: statuses[kind] });
  };
  for (const p of op.parameters) {
    if (p.in === 'cookie') continue;
    const slot = p.in === 'path' ? 'path' : p.in === 'query' ? 'query' : 'headers';
    for (const c of invalidValues(op.doc, p.schema, 'text')) {
      const value = String(c.value);
      if (p.in === 'path' && value === '') continue; // an empty segment is another route
      push(`${p.in} ${p.name}: ${c.what}`, { ...req, [slot]: { ...req[slot], [p.name]: value } });
    }
    if (p.required && p.in !== 'path' && p.name in req[slot]) {
      const { [p.name]: _, ...rest } = req[slot] as Record<string, unknown>;
      push(`${p.in} ${p.name}: missing required parameter`, { ...req, [slot]: rest });
    }
  }
  if (op.body) {
    if (req.body?.kind === 'form') {
      const text = bodyText(req.body)!;
      // a form with no field is no body at all (the missing body's case below)
      if (text !== '') {
        push('body: sent as JSON', { ...req, body: { kind: 'raw', text: JSON.stringify(req.body.value), contentType: 'application/json' } }, true, 'mediaType');
        push('body: no content type', { ...req, body: { kind: 'raw', text } }, true, 'mediaType');
      }
      const sites: Site[] = [];
      bodyMutations(op.doc, op.body.schema, req.body.value, [], 0, sites);
      // as the form would carry each (checked again: a value that is text on the wire may be valid)
      for (const site of sites)
        push(site.what, { ...req, body: { kind: 'form', value: formFields(setAt(req.body.value, site.path, site.value, site.remove)) } });
    } else if (req.body?.kind === 'json') {
      const text = JSON.stringify(req.body.value);
      push('body: malformed JSON', { ...req, body: { kind: 'raw', text: text.length > 1 ? text.slice(0, -1) : '{', contentType: 'application/json' } }, true);
      push('body: wrong content type (text/plain)', { ...req, body: { kind: 'raw', text, contentType: 'text/plain' } }, true, 'mediaType');
      push('body: no content type', { ...req, body: { kind: 'raw', text } }, true, 'mediaType');
      const sites: Site[] = [];
      bodyMutations(op.doc, op.body.schema, req.body.value, [], 0, sites);
      for (const site of sites) push(site.what, { ...req, body: { kind: 'json', value: setAt(req.body.value, site.path, site.value, site.remove) } });
    } else if (!takesForm(op))
      push('body: malformed JSON', { ...req, body: { kind: 'raw', text: '{"unterminated": ', contentType: 'application/json' } }, true);
    if (op.body.required && req.body !== undefined) push('body: missing required body', { ...req, body: undefined }, true);
  }
  return out;
}

/**
 * Invalid requests that run before the random ones: a valid body sent with a wrong and with
 * no content type (415) and once malformed (422), so every operation with a body is seen
 * refusing each on every run.
 */
export function edgeMutations(op: Operation, pool: Binding[] = []): Mutation[] {
  if (!op.body) return [];
  const withBody = fc
    .sample(validRequest(op, pool), { numRuns: 10, seed: 1 })
    .find((req) => req.body?.kind === 'json' || (req.body?.kind === 'form' && bodyText(req.body) !== ''));
  if (!withBody) return [];
  const all = mutationsOf(op, withBody);
  return [...all.filter((m) => m.kind === 'mediaType'), ...all.filter((m) => m.kind === 'invalid').slice(0, 1)];
}

/** Invalid requests for `op`; empty when the operation takes no input that could be wrong. */
export function invalidRequest(op: Operation, pool: Binding[] = []): fc.Arbitrary<Mutation> | undefined {
  const valid = validRequest(op, pool);
  // an operation without any input the spec could reject has no invalid requests
  if (!fc.sample(valid, { numRuns: 5, seed: 1 }).some((req) => mutationsOf(op, req).length > 0)) return undefined;
  return fc
    .tuple(valid, fc.nat())
    .map(([req, n]) => {
      const all = mutationsOf(op, req);
      return all.length ? all[n % all.length] : undefined;
    })
    .filter((m): m is Mutation => m !== undefined);
}
