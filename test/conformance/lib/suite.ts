// The conformance suite against one server: valid and invalid requests for every HTTP
// operation, credential probes, the JSON-RPC methods, link-following sequences, and the
// coverage table. Test files call defineConformanceSuite (../local.ts) for mock and for real
// mode; `agentplane-server conformance --url` runs it against any server (remote.suite.ts).
// Nothing here starts a server, so the package can ship it compiled.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { httpOperations, type Operation } from './contract.ts';
import { rejectionProblems } from './checks.ts';
import { coverageReport } from './coverage.ts';
import { edgeRequests, validRequest } from './generators.ts';
import { curl, describeResponse, send, type Target } from './http.ts';
import { seedPool } from './links.ts';
import { edgeMutations, invalidRequest } from './mutations.ts';
import { assertProperty, RUNS, Violation } from './property.ts';
import { added, snapshot } from './snapshot.ts';
import { defineAuthProbes, type StrictServer } from './auth.ts';
import { defineRpcProperties } from './rpc.ts';
import { defineStatefulProperties } from './stateful.ts';
import { defineRunOrderProperty } from './runOrder.ts';
import { defineProtocolProperties } from './protocol.ts';
import { expectConforming, type SuiteContext } from './suiteContext.ts';

export { expectConforming, type SuiteContext };

// Deletes last, so that fuzzing the reads and updates still finds the seeded resources.
const ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ordered = [...httpOperations].sort((a, b) => ORDER.indexOf(a.method) - ORDER.indexOf(b.method));

export function defineValidRequestProperties(ctx: () => SuiteContext, ops: Operation[] = ordered): void {
  describe('valid requests: documented status, schema-valid body, never a 5xx', () => {
    for (const op of ops) {
      it(`${op.operationId} (${op.method} ${op.path})`, async () => {
        const { target, pool } = ctx();
        await assertProperty(
          op.operationId,
          validRequest(op, pool.get(op.operationId)),
          async (req) => {
            const res = await expectConforming(target, op, req);
            pool.record(op, { request: req, response: res });
          },
          RUNS,
          edgeRequests(op, pool.get(op.operationId)),
        );
      });
    }
  });
}

export function defineInvalidRequestProperties(ctx: () => SuiteContext, ops: Operation[] = ordered): void {
  describe('invalid requests: 422 (415 for a body that is not application/json), never a 2xx or 5xx, nothing stored', () => {
    for (const op of ops) {
      const arbFor = (c: SuiteContext) => invalidRequest(op, c.pool.get(op.operationId));
      it(`${op.operationId} (${op.method} ${op.path})`, async (t) => {
        const c = ctx();
        if (c.notOffered.has(op.operationId)) {
          // a disabled operation answers 404 to anything: its own checks of input cannot apply
          t.diagnostic('not offered by this server (404 as a disabled operation)');
          return;
        }
        const arb = arbFor(c);
        if (!arb) {
          // nothing in the spec constrains this operation's input (no body, free-form or no
          // parameters): there is no invalid request to send, which is itself the finding
          t.diagnostic('takes no input the spec could reject');
          return;
        }
        const before = await snapshot(c.target, c.pool);
        await assertProperty(
          `${op.operationId} (invalid)`,
          arb,
          async (m) => {
            const res = await send(c.target, m.request);
            const problems = rejectionProblems(op, res, m.expect);
            if (problems.length) throw new Violation([`${m.description}:`, ...problems.map((p) => `  ${p}`)], curl(c.target, m.request), describeResponse(res));
          },
          RUNS,
          edgeMutations(op, c.pool.get(op.operationId)),
        );
        assert.deepEqual(added(before, await snapshot(c.target, c.pool)), [], `${op.operationId}: refused requests stored something`);
      });
    }
  });
}

export interface SuiteOptions {
  /** The server under test, once it is up. */
  target: () => Promise<Target>;
  mode: 'mock' | 'real';
  /** The same server requiring keys on every operation (credential probes of anonymous operations); absent: those probes are skipped. */
  strict?: () => Promise<StrictServer>;
  /** Which documents' operations to check (default: all three). */
  documents?: ('control-plane' | 'agent-server' | 'a2a')[];
  /** Fail when a documented outcome was never exercised (only meaningful for agentplane itself). */
  requireCoverage: boolean;
}

/** Every property of the suite against one server, inside the caller's describe. */
export function defineSuiteAgainst(options: SuiteOptions): void {
  let context: SuiteContext;
  const ctx = () => context;
  const documents = options.documents ?? ['control-plane', 'agent-server', 'a2a'];
  const inDocuments = (op: Operation) => documents.includes(op.jsonrpc ? 'a2a' : op.document);
  const ops = ordered.filter(inDocuments);
  before(async () => {
    const target = await options.target();
    const seeded = await seedPool(target);
    context = { target, pool: seeded.pool, seedProblems: seeded.problems, notOffered: await notOffered(target) };
  });

  it("the spec's own request examples get conforming answers", () => {
    assert.deepEqual(ctx().seedProblems, []);
  });
  defineValidRequestProperties(ctx, ops);
  defineInvalidRequestProperties(ctx, ops);
  if (documents.includes('a2a')) defineRpcProperties(ctx);
  defineAuthProbes(ctx, options.mode, options.strict, inDocuments);
  if (documents.includes('agent-server') || documents.includes('control-plane')) defineStatefulProperties(ctx);
  if (documents.includes('agent-server')) {
    defineRunOrderProperty(ctx);
    defineProtocolProperties(ctx);
  }

  it('exercises every documented status of every operation (coverage table)', () => {
    const { missing } = coverageReport(options.mode);
    if (!options.requireCoverage) return;
    assert.deepEqual(
      missing,
      [],
      `documented outcomes never exercised (list them in test/conformance/coverage-exceptions.json with a reason if they cannot be): ${missing.join(', ')}`,
    );
  });
}

export { RUNS };

/** The development OAuth provider's operations (its tag in the spec), there only on a server that offers it (AGENTPLANE_DEV_OAUTH). */
const DEV_PROVIDER = httpOperations.filter((op) => (op.raw.tags as string[] | undefined)?.includes('Development provider')).map((op) => op.operationId);

/** Which operations the server does not offer: its consent page's path answers 404 to a bare GET where the provider is off (it answers the page saying why where it is on). */
async function notOffered(target: Target): Promise<ReadonlySet<string>> {
  const res = await send(target, { operationId: 'devAuthorize', method: 'GET', template: '/dev/oauth/authorize', path: {}, query: {}, headers: {} });
  return new Set(res.status === 404 ? DEV_PROVIDER : []);
}
