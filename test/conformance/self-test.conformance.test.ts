// The suite catches planted bugs: a server whose handler is sabotaged must make the
// relevant property fail with a shrunk counterexample printed as a curl command.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createApplication } from '../../src/compose/application.ts';
import { apiDocuments, rpcDocument } from '../../src/runtime/api.ts';
import { createMockHandlers, createMockMethods } from '../../src/runtime/mock/producer.ts';
import type { AppFactory, Application } from '../../src/compose/server.ts';
import type { OperationHandler } from '../../src/runtime/transports/http/pipeline.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { httpOperations, operationById } from './lib/contract.ts';
import { edgeRequests, validRequest } from './lib/generators.ts';
import type { Target } from './lib/http.ts';
import { checkProperty } from './lib/property.ts';
import { checkSequences, statefulSettings, walkRoots } from './lib/stateful.ts';
import { expectConforming } from './lib/suite.ts';

type Wrap = (inner: OperationHandler) => OperationHandler;

/** An app of spec-example answers (or the real app) with one handler replaced. */
function sabotaged(base: 'examples' | 'real', operationId: string, wrap: Wrap): AppFactory {
  return async (deps) => {
    const app: Application =
      base === 'real'
        ? await createApplication(deps)
        : {
            handlers: (await createMockHandlers(apiDocuments)) as unknown as Application['handlers'],
            methods: createMockMethods(rpcDocument.document) as Application['methods'],
            modules: [],
          };
    return { ...app, handlers: { ...app.handlers, [operationId]: wrap(app.handlers[operationId]) } };
  };
}

const servers: TestServer[] = [];
async function serve(app: AppFactory, mode: Target['mode']): Promise<Target> {
  const server = await startTestServer({ app, exampleGraphs: 'all', env: { AGENTPLANE_VALIDATE_RESPONSES: '0' } });
  servers.push(server);
  return { url: server.url, key: server.key, mode };
}

async function validityFailure(target: Target, operationId: string) {
  const op = operationById.get(operationId)!;
  return checkProperty(
    operationId,
    validRequest(op),
    async (req) => {
      await expectConforming(target, op, req);
    },
    50,
  );
}

describe('the conformance suite catches planted bugs', () => {
  after(async () => {
    for (const s of servers) await s.close();
  });

  // The edge requests name a thread "never created" once per operation. With one id for all, an
  // earlier operation (a run with if_not_exists: create) created that thread, and a later one's
  // documented 404 (patchThreadState's) was exercised only when the fuzzer happened to miss.
  it('each operation names a thread never created of its own', () => {
    const withThread = httpOperations.filter((op) => op.parameters.some((p) => p.in === 'path' && p.name === 'thread_id'));
    const unknown = withThread.map((op) => {
      const example = op.parameters.find((p) => p.name === 'thread_id')!.example;
      const ids = new Set(
        edgeRequests(op)
          .map((req) => req.path.thread_id)
          .filter((id) => id !== example),
      );
      assert.equal(ids.size, 1, `${op.operationId}: ${[...ids].join(', ')}`);
      return [...ids][0];
    });
    assert.ok(withThread.some((op) => op.operationId === 'patchThreadState'));
    assert.equal(new Set(unknown).size, unknown.length);
  });

  // A reply is written from its schema (replySerializers.ts), which turns a value of the wrong
  // type into the declared one (a name of 42 goes out as "42"); a required field that is
  // missing still reaches the client as it is, and the suite must catch that.
  it('a required field missing from a reply', async () => {
    const target = await serve(
      sabotaged('examples', 'getDeployment', (inner) => async (req, ctx) => {
        const reply = await inner(req, ctx);
        const { name: _dropped, ...rest } = ('body' in reply ? reply.body : {}) as Record<string, unknown>;
        return { ...reply, body: rest };
      }),
      'mock',
    );
    const failure = await validityFailure(target, 'getDeployment');
    assert.ok(failure, 'the property should fail');
    assert.match(failure.report, /body does not match the 200 schema/);
    assert.match(failure.report, /"missingProperty":"name"/);
    assert.match(failure.report, /reproduce: curl -sS -i -X GET 'http:\/\/127\.0\.0\.1:\d+\/v2\/deployments\/[0-9a-f-]{36}'/);
  });

  it('a 500 on an edge input, shrunk to a minimal request that triggers it', async () => {
    const target = await serve(
      sabotaged('examples', 'listDeployments', (inner) => async (req, ctx) => {
        if (
          typeof (req.query as { name_contains?: unknown }).name_contains === 'string' &&
          String((req.query as { name_contains: string }).name_contains).length >= 3
        )
          throw new Error('planted: long filter');
        return inner(req, ctx);
      }),
      'mock',
    );
    const failure = await validityFailure(target, 'listDeployments');
    assert.ok(failure, 'the property should fail');
    console.log(failure.report);
    assert.match(failure.report, /server error 500/);
    // every other query parameter shrunk away, and the filter shrunk to the shortest that fails
    const m = /reproduce: curl -sS -i -X GET 'http:\/\/127\.0\.0\.1:\d+\/v2\/deployments\?name_contains=([^&']*)'/.exec(failure.report);
    assert.ok(m, `expected a curl line with only name_contains:\n${failure.report}`);
    // the filter still triggers the bug (UTF-16 length ≥ 3, as the planted check counts); it
    // shrinks to 3 characters when it started from a generated string, but a spec example
    // such as "my-agent" is kept whole when nothing shorter was reachable from it
    const value = decodeURIComponent(m[1].replace(/\+/g, ' '));
    assert.ok(value.length >= 3 && value.length <= 8, `shrunk filter: ${JSON.stringify(value)}`);
    assert.ok(failure.numShrinks > 0);
  });

  it('a missing 404 for a deleted resource, found by following the links', async () => {
    statefulSettings.goneWithinMs = 250;
    const example = (await createMockHandlers(apiDocuments)).getDeployment;
    const target = await serve(
      sabotaged('real', 'getDeployment', (inner) => async (req, ctx) => {
        const reply = await inner(req, ctx);
        if (reply.status !== 404) return reply;
        const { body } = (await example(req, ctx)) as { body: Record<string, unknown> };
        return { status: 200, body: { ...body, id: (req.path as { deployment_id: string }).deployment_id } };
      }),
      'real',
    );
    await assert.rejects(walkRoots(target, [operationById.get('createDeployment')!]), (err: Error) => {
      assert.match(err.message, /deleteDeployment answered 204, but getDeployment still answers 200/);
      assert.match(err.message, /curl -sS -i -X DELETE '[^']*\/v2\/deployments\/[0-9a-f-]{36}/);
      return true;
    });
    // sequences over the deployment operations (the root and what its links reach)
    const root = operationById.get('createDeployment')!;
    const reach = [root, ...new Set(Object.values(root.responses).flatMap((r) => r.links.map((l) => operationById.get(l.operationId)!)))];
    const failure = await checkSequences(target, 60, reach);
    assert.ok(failure, 'random link-following sequences should find it too');
    assert.match(failure.report, /answered 200, not 404|still answers 200/);
    assert.match(failure.report, /-X DELETE/);
    assert.match(failure.report, /minimal case after \d+ shrink/);
  });
});
