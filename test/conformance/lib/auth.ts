// Credential probes derived from each operation's security requirements: no key and an
// unknown key must be refused with 401 wherever no requirement is anonymous (and wherever
// the server is configured to require keys everywhere); a key sent for a tenant it does
// not own must be refused with 403 where a tenant header takes part in the requirements.
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { operations, type Operation } from './contract.ts';
import { validRequest } from './generators.ts';
import type { HttpRequest, Target } from './http.ts';
import { assertProperty, RUNS } from './property.ts';
import { expectConforming, type SuiteContext } from './suiteContext.ts';

const anonymousAllowed = (op: Operation) => op.security.some((r) => Object.keys(r).length === 0);
/**
 * No security requirement at all (`security: []`, the liveness probe), or agent discovery
 * (`x-agentplane-discovery`, the A2A cards: a key is optional whatever auth is in force):
 * public even where keys are required everywhere.
 */
const isPublic = (op: Operation) => op.security.length === 0 || op.raw['x-agentplane-discovery'] === true;

/** Header names of apiKey schemes that never authenticate alone (e.g. a tenant selector). */
function selectorHeaders(op: Operation): string[] {
  const schemes = op.doc.components?.securitySchemes ?? {};
  const names = new Set<string>();
  for (const req of op.security) {
    for (const name of Object.keys(req)) {
      const s = schemes[name];
      const alone = op.security.some((r) => Object.keys(r).length === 1 && name in r);
      if (s?.type === 'apiKey' && s.in === 'header' && !alone) names.add(s.name);
    }
  }
  return [...names];
}

export { securityHeaders, verifiesOwnCredential } from './securitySchemes.ts';

const probeRuns = Math.max(3, Math.round(RUNS / 5));

function expectStatus(expected: number) {
  return (res: { status: number }) => (res.status === expected ? [] : [`expected ${expected}, got ${res.status}`]);
}

/** A second server that requires keys on every operation (auth.agent_server: true). */
export interface StrictServer {
  target: Target;
  close(): Promise<void>;
}

export function defineAuthProbes(
  ctx: () => SuiteContext,
  mode: 'mock' | 'real',
  startStrict?: () => Promise<StrictServer>,
  include: (op: Operation) => boolean = () => true,
): void {
  describe('credentials: refused without a valid key, refused for a foreign tenant', () => {
    let strict: StrictServer | undefined;
    before(async () => {
      strict = await startStrict?.();
    });
    after(async () => {
      await strict?.close();
    });

    for (const op of operations.filter(include)) {
      it(`${op.operationId}`, async (t) => {
        const { target, pool } = ctx();
        if (anonymousAllowed(op) && !strict) {
          t.diagnostic(`${mode} target: open without keys; probing ${op.operationId} needs a server that requires keys everywhere`);
        }
        // a "." or ".." path value is a dot-segment to any URL client: the request never
        // reaches this operation (the valid-request property covers that case instead)
        const requests = validRequest(op, pool.get(op.operationId)).filter((req) => !Object.values(req.path).some((v) => v === '.' || v === '..'));
        const on = isPublic(op) ? undefined : anonymousAllowed(op) ? strict?.target : target;
        if (isPublic(op)) t.diagnostic(`${op.operationId} is public (security: []): no key is asked for`);
        if (on) {
          await assertProperty(
            `${op.operationId} without credentials`,
            requests,
            async (req) => {
              await expectConforming(on, op, { ...req, auth: false }, expectStatus(401));
              await expectConforming(on, op, { ...req, auth: `unknown-${randomUUID()}` }, expectStatus(401));
            },
            probeRuns,
          );
        }
        for (const header of selectorHeaders(op)) {
          await assertProperty(
            `${op.operationId} with a foreign ${header}`,
            requests,
            async (req) => {
              const probe: HttpRequest = { ...req, headers: { ...req.headers, [header]: randomUUID() } };
              await expectConforming(target, op, probe, expectStatus(403));
            },
            probeRuns,
          );
        }
        if (selectorHeaders(op).length === 0 && op.doc.components?.securitySchemes?.TenantId) {
          // the tenant header is declared but not part of this operation's requirements:
          // sending one must still get a documented answer
          const h = op.doc.components.securitySchemes.TenantId.name;
          await assertProperty(
            `${op.operationId} with an unlisted ${h}`,
            requests,
            async (req) => {
              await expectConforming(target, op, { ...req, headers: { ...req.headers, [h]: randomUUID() } });
            },
            probeRuns,
          );
          if (anonymousAllowed(op) && op.responses['403'] && strict) {
            const strictTarget = strict.target;
            // where keys are required everywhere, a foreign tenant is refused like on the control plane
            await assertProperty(
              `${op.operationId} with a foreign ${h} when keys are required`,
              requests,
              async (req) => {
                await expectConforming(strictTarget, op, { ...req, headers: { ...req.headers, [h]: randomUUID() } }, expectStatus(403));
              },
              probeRuns,
            );
          }
        }
      });
    }
  });
}
