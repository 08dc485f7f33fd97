// Blocking results: joinRun (wait for an existing run) and waitRun (create, then wait).
import type { AgentDomain } from '../../domain/agent/agentService.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AgentServerAreaHandlers } from './index.ts';
import { failed, flag, notFound, runLocation } from './replies.ts';

export function resultHandlers(domain: AgentDomain): Pick<AgentServerAreaHandlers, 'joinRun' | 'waitRun'> {
  /** Waits for the run; when the client leaves first, optionally cancels it. */
  async function settle(threadId: string, runId: string, ctx: RequestContext, cancelOnDisconnect: boolean) {
    await domain.waitForRun(threadId, runId, ctx.signal);
    if (ctx.signal.aborted && cancelOnDisconnect) await domain.cancelRun(threadId, runId);
    return domain.runResult(threadId, runId);
  }

  return {
    async joinRun({ path, query }, ctx) {
      if (!(await domain.getRun(path.thread_id, path.run_id))) return notFound(`Run ${path.run_id} not found`);
      return { status: 200, body: await settle(path.thread_id, path.run_id, ctx, flag(query.cancel_on_disconnect)) };
    },
    async waitRun({ path, body }, ctx) {
      const outcome = await domain.createRun(path.thread_id, body);
      if (!outcome.ok) return failed(outcome.failure) as { status: 404 | 409; body: { detail: string } };
      const run = outcome.value;
      const result = await settle(path.thread_id, run.run_id, ctx, body.on_disconnect === 'cancel');
      return { status: 200, headers: runLocation(path.thread_id, run.run_id), body: result };
    },
  };
}
