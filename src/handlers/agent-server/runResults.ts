// Blocking results: joinRun (wait for an existing run), waitRun and waitStatelessRun (create, then wait).
import type { RunService } from '../../domain/agent/service.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';
import { flag, runLocation, statelessRunLocation } from './replies.ts';

export function resultHandlers(runsFor: (ctx: RequestContext) => RunService): Pick<AgentServerAreaHandlers, 'joinRun' | 'waitRun' | 'waitStatelessRun'> {
  /** Waits for the run; when the client leaves first, optionally cancels it. */
  async function settle(threadId: string, runId: string, ctx: RequestContext, cancelOnDisconnect: boolean) {
    const runs = runsFor(ctx);
    const waited = await runs.wait(threadId, runId, ctx.signal);
    if (!waited.ok) return waited;
    if (ctx.signal.aborted && cancelOnDisconnect) await runs.cancel(threadId, runId);
    return { ok: true as const, value: await runs.result(threadId, runId) };
  }

  return {
    async joinRun({ path, query }, ctx) {
      const outcome = await settle(path.thread_id, path.run_id, ctx, flag(query.cancel_on_disconnect));
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async waitRun({ path, body }, ctx) {
      const runs = runsFor(ctx);
      const created = await runs.create(path.thread_id, body);
      if (!created.ok) return failed(created.failure);
      const runId = created.value.run_id;
      const outcome = await settle(path.thread_id, runId, ctx, body.on_disconnect === 'cancel');
      return outcome.ok ? { status: 200, headers: runLocation(path.thread_id, runId), body: outcome.value } : failed(outcome.failure);
    },
    async waitStatelessRun({ body }, ctx) {
      const runs = runsFor(ctx);
      const created = await runs.createStateless(body);
      if (!created.ok) return failed(created.failure);
      const run = created.value;
      // the temporary thread may be gone by now: the answer comes from the run's event log
      await runs.wait(run.thread_id, run.run_id, ctx.signal);
      if (ctx.signal.aborted && body.on_disconnect === 'cancel') await runs.cancel(run.thread_id, run.run_id);
      return { status: 200, headers: statelessRunLocation(run), body: await runs.result(run.thread_id, run.run_id) };
    },
  };
}
