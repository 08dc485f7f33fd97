// What every property of the suite works with: the server under test and the resources
// found on it, and the one way to send a request and demand a conforming answer. Apart from
// suite.ts, which assembles the properties defined in auth.ts, rpc.ts, stateful.ts… from it.
import { conformanceProblems } from './checks.ts';
import type { Operation } from './contract.ts';
import { curl, describeResponse, send, type HttpRequest, type Target } from './http.ts';
import type { ResourcePool } from './links.ts';
import { Violation } from './property.ts';

export interface SuiteContext {
  target: Target;
  pool: ResourcePool;
  /** What was wrong with the answers to the spec's own request examples (sent first). */
  seedProblems: string[];
  /**
   * Operations the server does not offer: the development OAuth provider's, on a server without
   * it (AGENTPLANE_DEV_OAUTH off, as a production server) — 404 as a disabled operation, whatever was sent.
   */
  notOffered: ReadonlySet<string>;
}

/** Sends a request and throws a Violation with a curl line when the answer breaks the spec. */
export async function expectConforming(target: Target, op: Operation, req: HttpRequest, extra: (res: Awaited<ReturnType<typeof send>>) => string[] = () => []) {
  const res = await send(target, req);
  const problems = [...conformanceProblems(op, res), ...extra(res)];
  if (problems.length) throw new Violation(problems, curl(target, req), describeResponse(res));
  return res;
}
