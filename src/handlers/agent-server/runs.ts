// Background runs: getAssistantRunMetrics (figures over an assistant's runs), createRun, listRuns, getRun, getRunTrace, cancelRun, deleteRun; stateless ones
// (createStatelessRun, createRunBatch) and bulk cancellation (cancelRuns).
import type { Run, RunSelection } from '../../../generated/agent-server/types.gen.ts';
import type { RunService } from '../../domain/agent/service.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';
import { flag, runLocation, statelessRunLocation } from './replies.ts';

type RunOps =
  | 'getAssistantRunMetrics'
  | 'createRun'
  | 'listRuns'
  | 'getRun'
  | 'getRunTrace'
  | 'cancelRun'
  | 'deleteRun'
  | 'createStatelessRun'
  | 'createRunBatch'
  | 'cancelRuns';

export function runHandlers(runsFor: (ctx: RequestContext) => RunService): Pick<AgentServerAreaHandlers, RunOps> {
  return {
    async createRun({ path, body }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.create(path.thread_id, body);
      if (!outcome.ok) return failed(outcome.failure);
      return { status: 200, headers: runLocation(path.thread_id, outcome.value.run_id), body: outcome.value };
    },
    async listRuns({ path, query }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.list(path.thread_id, query);
      if (!outcome.ok) return failed(outcome.failure);
      const select = query.select as (keyof Run)[] | undefined;
      const body = select?.length ? outcome.value.map((r) => Object.fromEntries(select.map((k) => [k, r[k]])) as RunSelection) : outcome.value;
      return { status: 200, body };
    },
    async getRun({ path }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.get(path.thread_id, path.run_id);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async getAssistantRunMetrics({ path, query }, ctx) {
      const outcome = await runsFor(ctx).assistantMetrics(path.assistant_id, query.window_s ?? 3600);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async getRunTrace({ path }, ctx) {
      const outcome = await runsFor(ctx).trace(path.thread_id, path.run_id);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async cancelRun({ path, query }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.cancel(path.thread_id, path.run_id, query.action ?? 'interrupt');
      if (!outcome.ok) return failed(outcome.failure);
      // as upstream: 202 at once, or 204 once the run has stopped
      if (!flag(query.wait)) return { status: 202, body: {} };
      await runs.wait(path.thread_id, path.run_id);
      return { status: 204 };
    },
    async deleteRun({ path }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.delete(path.thread_id, path.run_id);
      return outcome.ok ? { status: 204 } : failed(outcome.failure);
    },
    async createStatelessRun({ body }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.createStateless(body);
      if (!outcome.ok) return failed(outcome.failure);
      return { status: 200, headers: statelessRunLocation(outcome.value), body: outcome.value };
    },
    async createRunBatch({ body }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.createBatch(body);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async cancelRuns({ body, query }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.cancelMany(body, query.action ?? 'interrupt');
      return outcome.ok ? { status: 204 } : failed(outcome.failure);
    },
  };
}
