// Lint of the three spec documents: every operation has an operationId and a summary and
// documents its error answers; every example validates against its schema; every link
// names an existing operation and parameters it has.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { operations, operationById, readDocument, refusalStatuses, resolve, rpc, type Json } from './lib/contract.ts';
import { wireQuery } from './lib/http.ts';
import { evaluateRpc, paramName } from './lib/links.ts';
import { securityHeaders, verifiesOwnCredential } from './lib/auth.ts';
import { loadDocument as loadProtocol } from '../../generated/protocol/document.gen.js';

/**
 * Operations that answer a missing resource in their documented body, as upstream's do: wait
 * says `not_found` in its 200, and the OAuth callback's 400 page is the same for every flow
 * it did not start (so a forged state learns nothing).
 */
const MISSING_IN_BODY = new Set(['waitForAuth', 'authCallback']);

const cjs = (m: any) => m.default ?? m;
const Ajv2020 = cjs(Ajv2020Module);
const addFormats = cjs(addFormatsModule);

/** Validates values against any schema of a bundled document (component schemas and inline ones). */
function schemaChecker(key: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const doc = readDocument(key);
  const id = `https://lint.local/${key}.json`;
  ajv.addSchema({ $id: id, components: doc.components ?? {} });
  const rewrite = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node && typeof node === 'object') {
      const out: Json = {};
      for (const [k, v] of Object.entries(node))
        out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${id}${v}` : k === 'examples' || k === 'example' ? v : rewrite(v);
      return out;
    }
    return node;
  };
  return (schema: Json, value: unknown): string | null => {
    const validate = ajv.compile(rewrite(schema));
    return validate(structuredClone(value)) ? null : ajv.errorsText(validate.errors);
  };
}

/** Every (schema, example) pair in a document: schema `examples`/`example`, media types, parameters. */
function examplesOf(doc: Json): { where: string; schema: Json; value: unknown }[] {
  const out: { where: string; schema: Json; value: unknown }[] = [];
  const walk = (node: Json, where: string) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
    if (!node || typeof node !== 'object') return;
    const isSchemaHolder = 'schema' in node && node.schema && typeof node.schema === 'object';
    if (isSchemaHolder) {
      if (node.example !== undefined) out.push({ where: `${where}/example`, schema: node.schema, value: node.example });
      for (const [name, e] of Object.entries<Json>(node.examples && !Array.isArray(node.examples) ? node.examples : {})) {
        const ex = resolve(doc, e);
        if (ex?.value !== undefined) out.push({ where: `${where}/examples/${name}`, schema: node.schema, value: ex.value });
      }
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'example' || k === 'examples') {
        if (
          Array.isArray(v) &&
          !isSchemaHolder &&
          ('type' in node || '$ref' in node || 'properties' in node || 'anyOf' in node || 'oneOf' in node || 'enum' in node)
        )
          v.forEach((value, i) => out.push({ where: `${where}/examples/${i}`, schema: { ...node, examples: undefined }, value }));
        continue;
      }
      walk(v, `${where}/${k}`);
    }
  };
  walk(doc, '#');
  return out;
}

describe('spec lint', () => {
  for (const op of operations) {
    it(`${op.operationId}: operationId, summary, documented errors`, () => {
      assert.ok(op.operationId, `${op.method} ${op.path} has no operationId`);
      assert.ok(op.summary?.trim(), `${op.operationId} has no summary`);
      const statuses = Object.keys(op.responses);
      // (a WebSocket's success is its upgrade, 101 Switching Protocols; an HTML form's, the page it
      // sends the browser to, 303 See Other)
      assert.ok(
        statuses.some((s) => s.startsWith('2') || s === '101' || s === '303'),
        `${op.operationId} documents no success answer`,
      );
      const errors = statuses.filter((s) => /^[45]/.test(s));
      assert.ok(errors.length > 0, `${op.operationId} documents no error answer`);
      for (const s of errors) assert.ok(Object.keys(op.responses[s].content).length > 0, `${op.operationId} ${s} documents no error body`);
      const needsKey = op.security.length > 0 && !op.security.some((r) => Object.keys(r).length === 0);
      // agent discovery (x-agentplane-discovery) reads a key if one is sent and ignores an invalid one: never 401
      const anonymousOrKey = op.security.some((r) => Object.keys(r).length > 0) && op.raw['x-agentplane-discovery'] !== true;
      if (needsKey || anonymousOrKey) assert.ok(statuses.includes('401'), `${op.operationId} accepts credentials but documents no 401`);
      // an operation that checks its own credential against the resource in its path (a listener's token) answers a
      // missing resource as a wrong credential, 401, so that a token says nothing of resources other than its own
      if (op.parameters.some((p) => p.in === 'path') && !verifiesOwnCredential(op) && !MISSING_IN_BODY.has(op.operationId))
        assert.ok(statuses.includes('404'), `${op.operationId} names a resource in its path but documents no 404`);
      const refusal = String(refusalStatuses(op).invalid);
      if (!op.jsonrpc && (op.parameters.length > 0 || op.body))
        assert.ok(statuses.includes(refusal), `${op.operationId} takes input but documents no ${refusal}`);
      for (const [s, r] of Object.entries(op.responses)) {
        for (const link of r.links) {
          const target = operationById.get(link.operationId);
          assert.ok(target, `${op.operationId} ${s} link ${link.name} names unknown operation ${link.operationId}`);
          for (const [name, expr] of Object.entries(link.parameters)) {
            assert.ok(
              target.parameters.some((p) => p.name === paramName(name)) || (name.startsWith('header.') && securityHeaders(target).includes(paramName(name))),
              `${op.operationId} ${s} link ${link.name}: ${link.operationId} has no parameter ${name}`,
            );
            assert.match(
              String(expr),
              /^\$(response\.(body(#\/.*)?|header\..+)|request\.(path|query|header)\..+|request\.body(#\/.*)?|statusCode)$|^[^$]/,
              `${op.operationId} ${s} link ${link.name}: bad runtime expression ${expr}`,
            );
          }
        }
      }
    });
  }

  for (const key of ['control-plane', 'agent-server'] as const) {
    it(`${key}: every example validates against its schema`, () => {
      const doc = readDocument(key);
      const check = schemaChecker(key);
      const failures = examplesOf(doc)
        .map(({ where, schema, value }) => {
          const s = resolve(doc, schema);
          if (s?.type === 'string' && typeof value === 'string' && /\n\n/.test(value)) return null; // an SSE transcript
          const error = check(schema, value);
          return error ? `${where}: ${error}` : null;
        })
        .filter(Boolean);
      assert.deepEqual(failures, []);
    });

    it(`${key}: parameter and request body examples are accepted by the request validators`, () => {
      const failures: string[] = [];
      for (const op of operations.filter((o) => o.document === key)) {
        for (const body of op.body?.examples ?? [])
          if (op.validators.body && !op.validators.body(structuredClone(body)))
            failures.push(`${op.operationId} body example: ${JSON.stringify(op.validators.body.errors?.slice(0, 2))}`);
        const queryParams = op.parameters.filter((x) => x.in === 'query');
        // each example is checked beside an example of every other required parameter
        const requiredOthers = (name: string) =>
          Object.fromEntries(queryParams.filter((x) => x.required && x.name !== name && x.examples.length).map((x) => [x.name, x.examples[0]]));
        for (const p of queryParams) {
          for (const ex of p.examples)
            if (op.validators.query && !op.validators.query(wireQuery({ ...requiredOthers(p.name), [p.name]: ex })))
              failures.push(`${op.operationId} query ${p.name} example ${JSON.stringify(ex)}`);
        }
      }
      assert.deepEqual(failures, []);
    });
  }

  it("the protocol routes' request schemas are spec/protocol.openrpc.json's (Command, EventStreamRequest)", () => {
    // what validates a value, without the words: refs followed, descriptions and examples dropped
    const shape = (doc: Json, node: Json): Json => {
      if (Array.isArray(node)) return node.map((n) => shape(doc, n));
      if (!node || typeof node !== 'object') return node;
      if (typeof node.$ref === 'string') return shape(doc, resolve(doc, node));
      return Object.fromEntries(
        Object.entries(node)
          .filter(([k]) => !['description', 'examples', 'example', 'title'].includes(k))
          .map(([k, v]) => [k, shape(doc, v)]),
      );
    };
    const agent = readDocument('agent-server');
    const protocol = loadProtocol();
    for (const [ours, theirs] of [
      ['ProtocolCommand', 'Command'],
      ['ProtocolEventFilter', 'EventStreamRequest'],
    ])
      assert.deepEqual(shape(agent, agent.components.schemas[ours]), shape(protocol, protocol.components.schemas[theirs]), `${ours} is not ${theirs}`);
  });

  for (const m of rpc.methods) {
    it(`${m.name}: summary, documented errors, examples that validate, links that resolve`, () => {
      assert.ok(m.raw.summary?.trim(), `${m.name} has no summary`);
      assert.ok(m.errors.length > 0, `${m.name} documents no errors`);
      for (const e of m.errors) assert.ok(Number.isInteger(e.code) && typeof e.message === 'string', `${m.name}: malformed error ${JSON.stringify(e)}`);
      assert.ok(m.examples.length > 0, `${m.name} has no example`);
      for (const e of m.examples) {
        assert.ok(m.validators.params(structuredClone(e.params)), `${m.name} example params: ${JSON.stringify(m.validators.params.errors?.slice(0, 2))}`);
        if (e.result !== undefined && m.validators.result)
          assert.ok(m.validators.result(structuredClone(e.result)), `${m.name} example result: ${JSON.stringify(m.validators.result.errors?.slice(0, 2))}`);
      }
      for (const link of m.links) {
        const target = rpc.methods.find((x) => x.name === link.operationId);
        assert.ok(target, `${m.name} link ${link.name} names unknown method ${link.operationId}`);
        for (const [name, expr] of Object.entries(link.parameters)) {
          assert.ok(
            target.params.some((p) => p.name === name),
            `${m.name} link ${link.name}: ${target.name} has no param ${name}`,
          );
          assert.doesNotThrow(() => evaluateRpc(expr, {}, {}), `${m.name} link ${link.name}: bad runtime expression ${expr}`);
        }
      }
    });
  }
});
