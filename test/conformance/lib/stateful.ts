// Stateful sequences that follow the spec's links: operations that need no existing
// resource create some, and every later step calls an operation a link points to, with
// the parameters that link names. Every answer must conform; in real mode the answers
// must also agree with each other — what was created can be read, an answer's links name
// the resource that was asked for, what was deleted is gone, and runs on one thread
// complete in the order they were received.
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { httpOperations, operationById, type Operation } from './contract.ts';
import { conformanceProblems } from './checks.ts';
import { acceptedBySpec, edgeRequests, validRequest, type Binding } from './generators.ts';
import { curl, describeResponse, requestFor, send, type HttpRequest, type HttpResponse, type Target } from './http.ts';
import { CredentialBook } from './credentials.ts';
import { bindingOf, paramName, ResourcePool } from './links.ts';
import { checkProperty, RUNS, Violation, type PropertyFailure } from './property.ts';
import type { SuiteContext } from './suiteContext.ts';

const hasLinks = (op: Operation) => Object.values(op.responses).some((r) => r.links.length > 0);
/** Operations that create or find resources without naming one: where sequences start. */
export const roots = httpOperations.filter((op) => hasLinks(op) && !op.parameters.some((p) => p.in === 'path'));
const linked = httpOperations.filter((op) =>
  httpOperations.some((src) => Object.values(src.responses).some((r) => r.links.some((l) => l.operationId === op.operationId))),
);
const isRead = (op: Operation) => op.method === 'GET' && Object.values(op.responses).some((r) => 'application/json' in r.content);
/** How long a deleted resource may still be read (deletion may finish in the background). */
export const statefulSettings = { goneWithinMs: 10_000 };

/** A request example with fresh identifiers: uuid-format values replaced, so creating twice does not collide. */
function freshen(value: unknown, fresh: () => string): unknown {
  if (typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return fresh();
  if (Array.isArray(value)) return value.map((v) => freshen(v, fresh));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, freshen(v, fresh)]));
  return value;
}

/** A root request: the spec's example with fresh ids and a unique suffix on its `name`-like top-level strings, or a generated one. */
function rootRequest(op: Operation, examplesOnly = false): fc.Arbitrary<HttpRequest> {
  const generated = validRequest(op);
  if (!op.body?.examples.length) return generated;
  const fromExample = fc
    .tuple(fc.constantFrom(...op.body.examples), fc.uuid(), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 6, maxLength: 6 }))
    .map(([example, uuid, suffix]) => {
      let n = 0;
      const value = freshen(example, () => `${uuid.slice(0, -4)}${(n++).toString(16).padStart(4, '0')}`) as Record<string, unknown>;
      const unique = value && typeof value === 'object' ? { ...value } : value;
      for (const [k, v] of Object.entries(unique ?? {}))
        if (typeof v === 'string' && /name|_id$/.test(k) && !/^[0-9a-f-]{36}$/.test(v)) (unique as Record<string, unknown>)[k] = `${v}-${suffix}`;
      const req = requestFor(op, { body: { kind: 'json', value: unique } });
      return acceptedBySpec(op, req) ? req : { ...req, body: { kind: 'json' as const, value } };
    });
  return examplesOnly ? fromExample : fc.oneof({ weight: 3, arbitrary: fromExample }, { weight: 1, arbitrary: generated });
}

interface Model {
  pool: ResourcePool;
  deleted: Binding[];
}

class World {
  readonly log: string[] = [];
  constructor(readonly target: Target) {}

  async exchange(op: Operation, req: HttpRequest, extra: (res: HttpResponse) => string[] = () => []): Promise<HttpResponse> {
    this.log.push(curl(this.target, req));
    const res = await send(this.target, req);
    const problems = [...conformanceProblems(op, res), ...extra(res)];
    if (problems.length) {
      const steps = this.log.map((c, i) => `    ${i + 1}. ${c}`).join('\n');
      throw new Violation([...problems, `  sequence (${this.log.length} step(s)):\n${steps}`], curl(this.target, req), describeResponse(res));
    }
    return res;
  }
}

const covers = (binding: Binding, gone: Binding) => Object.entries(gone).every(([k, v]) => binding[k] === v);

/** Real mode: a read's links that name a parameter of the request must name the same value (writes may mint new ones, e.g. a redeploy's new revision). */
function selfConsistency(op: Operation, req: HttpRequest, res: HttpResponse): string[] {
  const problems: string[] = [];
  for (const link of op.responses[String(res.status)]?.links ?? []) {
    const b = bindingOf(link, { request: req, response: res });
    if (!b) continue;
    for (const [name, value] of Object.entries(b)) {
      if (name in req.path && String(req.path[name]) !== String(value))
        problems.push(`the answer names ${name} ${JSON.stringify(value)} (link ${link.name}) but the request asked for ${JSON.stringify(req.path[name])}`);
    }
  }
  return problems;
}

async function afterAnswer(world: World, model: Model, op: Operation, req: HttpRequest, res: HttpResponse, real: boolean): Promise<void> {
  model.pool.record(op, { request: req, response: res });
  if (!real || res.status < 200 || res.status >= 300) return;
  // a write that succeeded on a deleted resource's path made it again (a run created with
  // if_not_exists=create on a deleted thread): it is no longer gone
  if (op.method !== 'DELETE' && op.method !== 'GET') {
    for (let i = model.deleted.length - 1; i >= 0; i -= 1) if (covers(req.path, model.deleted[i])) model.deleted.splice(i, 1);
  }
  // what was created can be read: follow the new links to reads at once
  if (op.method === 'POST') {
    for (const link of op.responses[String(res.status)]?.links ?? []) {
      const target = operationById.get(link.operationId)!;
      const binding = bindingOf(link, { request: req, response: res });
      if (!binding || !isRead(target)) continue;
      const read = requestOf(target, binding);
      await world.exchange(target, read, (r) =>
        r.status >= 200 && r.status < 300 ? [] : [`${op.operationId} answered ${res.status}, but reading it back (link ${link.name}) answered ${r.status}`],
      );
    }
  }
  // what was deleted is gone: every read of it (or of anything under it) ends in 404
  if (op.method === 'DELETE') {
    const gone: Binding = Object.fromEntries(Object.entries(req.path));
    model.deleted.push(gone);
    for (const reader of linked.filter((t) => isRead(t) && t.parameters.some((p) => p.in === 'path'))) {
      for (const binding of model.pool.get(reader.operationId).filter((b) => covers(b, gone))) {
        const read = requestOf(reader, binding);
        const deadline = Date.now() + statefulSettings.goneWithinMs;
        for (;;) {
          const r = await send(world.target, read);
          if (r.status === 404) break;
          if (Date.now() > deadline) {
            await world.exchange(reader, read, () => [
              `${op.operationId} answered ${res.status}, but ${reader.operationId} still answers ${r.status} after ${statefulSettings.goneWithinMs} ms`,
            ]);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    }
  }
}

function requestOf(op: Operation, binding: Binding): HttpRequest {
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(binding)) {
    const p = op.parameters.find((x) => x.name === paramName(k));
    if (p?.in === 'path') path[p.name] = v;
    else if (p?.in === 'query') query[p.name] = v;
  }
  // requestFor marks operations whose answer is a stream that stays open, so they are read briefly, not until a time-out
  return requestFor(op, { path, query, body: op.body?.required && op.body.examples.length ? { kind: 'json', value: op.body.examples[0] } : undefined });
}

class RootCommand implements fc.AsyncCommand<Model, World> {
  constructor(
    readonly op: Operation,
    readonly req: HttpRequest,
    readonly real: boolean,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, world: World): Promise<void> {
    const res = await world.exchange(this.op, this.req);
    await afterAnswer(world, model, this.op, this.req, res, this.real);
  }
  toString(): string {
    return `${this.op.operationId}`;
  }
}

class FollowCommand implements fc.AsyncCommand<Model, World> {
  constructor(
    readonly op: Operation,
    readonly pick: number,
    readonly req: HttpRequest,
    readonly real: boolean,
  ) {}
  check(model: Model): boolean {
    return model.pool.get(this.op.operationId).length > 0;
  }
  async run(model: Model, world: World): Promise<void> {
    const bindings = model.pool.get(this.op.operationId);
    const binding = bindings[this.pick % bindings.length];
    const base = requestOf(this.op, binding);
    const req: HttpRequest = { ...this.req, path: { ...this.req.path, ...base.path }, query: { ...this.req.query, ...base.query } };
    const gone = this.real && isRead(this.op) && model.deleted.some((d) => covers(req.path, d));
    const res = await world.exchange(this.op, req, (r) => [
      ...(this.real && this.op.method === 'GET' && r.status >= 200 && r.status < 300 ? selfConsistency(this.op, req, r) : []),
      ...(gone && r.status !== 404 ? [`${this.op.operationId} of a deleted resource answered ${r.status}, not 404`] : []),
    ]);
    await afterAnswer(world, model, this.op, req, res, this.real);
  }
  toString(): string {
    return `${this.op.operationId}#${this.pick}`;
  }
}

/** Each root once, then each of its links with each edge variant. */
export async function walkRoots(target: Target, only: Operation[] = roots): Promise<void> {
  const real = target.mode === 'real';
  // actions first, while the new resource is still settling (a redeploy of a revision
  // that is still building is a documented 400), then reads, deletes last
  const order = ['POST', 'PATCH', 'PUT', 'GET', 'DELETE'];
  for (const root of only) {
    const create = async (world: World, model: Model, n: number) => {
      // the spec's examples include documented refusals (a 400 for a broken rule): walk from one that creates
      for (let attempt = 0; attempt < 8; attempt += 1) {
        const [req] = fc.sample(rootRequest(root, true), { numRuns: 1, seed: 7 + n + attempt * 1000 });
        const res = await world.exchange(root, req);
        await afterAnswer(world, model, root, req, res, real);
        if (res.status >= 200 && res.status < 300) return;
      }
    };
    // what the walk's answers issue (a listener's token) goes with the requests that check it
    const credentials = new CredentialBook();
    const world = new World({ ...target, ownCredentials: credentials });
    const model: Model = { pool: new ResourcePool(credentials), deleted: [] };
    await create(world, model, 0);
    const links = Object.values(root.responses).flatMap((r) => r.links);
    const targets = [...new Set(links.map((l) => l.operationId))]
      .map((id) => operationById.get(id)!)
      .sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method));
    let fresh = 0;
    for (const t of targets) {
      if (!model.pool.get(t.operationId).length) continue; // the root's answer named nothing for it
      for (const variant of edgeRequests(t, model.pool.get(t.operationId).slice(-1))) {
        if (t.method === 'DELETE' && fresh > 0) {
          // a delete consumes its resource: give each variant a new one
          const m2: Model = { pool: new ResourcePool(credentials), deleted: [] };
          await create(world, m2, fresh);
          const b = m2.pool.get(t.operationId).at(-1);
          if (!b) continue;
          await new FollowCommand(t, 0, { ...variant, path: requestOf(t, b).path }, real).run(m2, world);
        } else await new FollowCommand(t, model.pool.get(t.operationId).length - 1, variant, real).run(model, world);
        if (t.method === 'DELETE') fresh += 1;
      }
    }
    if (process.env.CONFORMANCE_DEBUG) console.log(`walk from ${root.operationId}:\n${world.log.join('\n')}`);
  }
}

/** Random link-following sequences; the failure (shrunk to a minimal sequence) or null. */
export function checkSequences(target: Target, numRuns = Math.max(5, Math.round(RUNS / 2)), only?: Operation[]): Promise<PropertyFailure | null> {
  const real = target.mode === 'real';
  const within = (op: Operation) => !only || only.includes(op);
  const roots_ = roots.filter(within);
  const linked_ = linked.filter(within);
  // half the steps start something, half follow a link from what exists
  const commands = [
    fc.oneof(...roots_.map((op) => rootRequest(op).map((req) => new RootCommand(op, req, real)))),
    fc.oneof(...linked_.map((op) => fc.tuple(fc.nat(), validRequest(op)).map(([pick, req]) => new FollowCommand(op, pick, req, real)))),
    fc.oneof(...linked_.map((op) => fc.tuple(fc.nat(), validRequest(op)).map(([pick, req]) => new FollowCommand(op, pick, req, real)))),
  ];
  return checkProperty(
    'link-following sequence',
    fc.commands(commands, { maxCommands: 16, size: '+1' }),
    async (cmds) => {
      const credentials = new CredentialBook();
      const model: Model = { pool: new ResourcePool(credentials), deleted: [] };
      const world = new World({ ...target, ownCredentials: credentials });
      await fc.asyncModelRun(() => ({ model, real: world }), cmds);
      if (process.env.CONFORMANCE_DEBUG) console.log(`sequence: ${String(cmds)} → ${world.log.length} request(s)`);
    },
    numRuns,
  );
}

export function defineStatefulProperties(ctx: () => SuiteContext): void {
  describe('stateful sequences following the spec links', () => {
    it('each root, then each of its links with each edge variant (actions, reads, then deletes on a fresh resource each)', async () => {
      await walkRoots(ctx().target);
    });

    it('every step conforms; created is readable, deleted is gone, answers name what was asked', async () => {
      const failure = await checkSequences(ctx().target);
      if (failure) throw new Error(failure.report);
    });
  });
}
