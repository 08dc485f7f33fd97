// Runs on one thread complete in the order received (multitask strategy `enqueue`):
// follow the links thread → runs → join → state. While the thread is busy, `reject`
// must not start another run and a pending run can be cancelled (and waited for: 204); a
// finished run can be deleted (204).
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { operationById, type Operation } from './contract.ts';
import { conformanceProblems } from './checks.ts';
import { curl, describeResponse, send, type HttpRequest, type HttpResponse } from './http.ts';
import { bindingOf } from './links.ts';
import { assertProperty, RUNS, Violation } from './property.ts';
import type { SuiteContext } from './suiteContext.ts';

const op = (id: string) => operationById.get(id)!;
const createThread = op('createThread');

function linkedRequest(
  from: Operation,
  status: string,
  targetId: string,
  ex: { request: HttpRequest; response: HttpResponse },
  body?: unknown,
  query: Record<string, unknown> = {},
): HttpRequest {
  const link = from.responses[status].links.find((l) => l.operationId === targetId);
  if (!link) throw new Error(`the spec has no link from ${from.operationId} ${status} to ${targetId}`);
  const target = op(targetId);
  const binding = bindingOf(link, ex) ?? {};
  return {
    operationId: targetId,
    method: target.method,
    template: target.path,
    path: binding,
    query,
    headers: {},
    body: body === undefined ? undefined : { kind: 'json', value: body },
  };
}

export function defineRunOrderProperty(ctx: () => SuiteContext): void {
  describe('runs on one thread', () => {
    it('complete in the order received; reject answers 409 and a pending run can be cancelled while the thread is busy', async () => {
      const { target } = ctx();
      const real = target.mode === 'real';
      const runBody = op('createRun').body!.examples[0] as Record<string, unknown>;
      const log: string[] = [];
      const call = async (o: Operation, req: HttpRequest, extra: (r: HttpResponse) => string[] = () => []) => {
        log.push(curl(target, req));
        const res = await send(target, req);
        const problems = [...conformanceProblems(o, res), ...extra(res)];
        if (problems.length)
          throw new Violation([...problems, `  sequence:\n${log.map((c, i) => `    ${i + 1}. ${c}`).join('\n')}`], curl(target, req), describeResponse(res));
        return { request: req, response: res };
      };
      const ok = (what: string) => (r: HttpResponse) => (real && (r.status < 200 || r.status >= 300) ? [`${what} answered ${r.status}`] : []);
      await assertProperty(
        'runs in order',
        fc.integer({ min: 2, max: 4 }),
        async (count) => {
          log.length = 0;
          const thread = await call(
            createThread,
            {
              operationId: createThread.operationId,
              method: 'POST',
              template: createThread.path,
              path: {},
              query: {},
              headers: {},
              body: { kind: 'json', value: {} },
            },
            ok('createThread'),
          );
          const runs = [];
          // the first run waits a moment before it may start, so the others queue behind it
          for (let i = 0; i < count; i += 1) {
            const body = { ...runBody, multitask_strategy: 'enqueue', ...(i === 0 ? { after_seconds: 0.5 } : {}) };
            runs.push(await call(op('createRun'), linkedRequest(createThread, '200', 'createRun', thread, body), ok('createRun')));
          }
          // the thread is busy now: reject must refuse (or, if the queue already drained, run)
          for (const id of ['createRun', 'waitRun', 'streamRun']) {
            await call(op(id), linkedRequest(createThread, '200', id, thread, { ...runBody, multitask_strategy: 'reject' }));
          }
          const extra = await call(
            op('createRun'),
            linkedRequest(createThread, '200', 'createRun', thread, { ...runBody, multitask_strategy: 'enqueue' }),
            ok('createRun'),
          );
          await call(op('cancelRun'), linkedRequest(op('createRun'), '200', 'cancelRun', extra));
          // waiting for a cancelled run to stop answers 204 once it has (here: at once, it never started)
          await call(op('cancelRun'), linkedRequest(op('createRun'), '200', 'cancelRun', extra, undefined, { wait: true }), (r) =>
            real && r.status !== 204 ? [`cancelRun ?wait=true of a cancelled run answered ${r.status}, not 204`] : [],
          );
          const finished: { created: string; updated: string; status: string }[] = [];
          for (const run of runs) {
            await call(op('joinRun'), linkedRequest(op('createRun'), '200', 'joinRun', run), ok('joinRun'));
            const got = await call(op('getRun'), linkedRequest(op('createRun'), '200', 'getRun', run), ok('getRun'));
            const r = got.response.json as { created_at: string; updated_at: string; status: string };
            finished.push({ created: r?.created_at, updated: r?.updated_at, status: r?.status });
          }
          // a finished run can be deleted: 204
          await call(op('deleteRun'), linkedRequest(op('createRun'), '200', 'deleteRun', runs[0]), (r) =>
            real && r.status !== 204 ? [`deleteRun of a finished run answered ${r.status}, not 204`] : [],
          );
          if (!real) return;
          const problems: string[] = [];
          finished.forEach((r, i) => {
            if (['pending', 'running'].includes(r.status)) problems.push(`run ${i + 1} is still ${r.status} after join`);
            if (i > 0 && Date.parse(r.updated) < Date.parse(finished[i - 1].updated))
              problems.push(`run ${i + 1} finished (${r.updated}) before run ${i} (${finished[i - 1].updated}), though it was received later`);
          });
          if (problems.length)
            throw new Violation(
              [...problems, `  sequence:\n${log.map((c, i) => `    ${i + 1}. ${c}`).join('\n')}`],
              log[log.length - 1],
              JSON.stringify(finished),
            );
        },
        Math.max(3, Math.round(RUNS / 8)),
      );
    });
  });
}
