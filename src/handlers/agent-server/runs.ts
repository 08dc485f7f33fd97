// Background runs: createRun, listRuns, getRun, cancelRun.
import type { Run, RunSelection } from '../../../generated/agent-server/types.gen.ts';
import type { AgentDomain } from '../../domain/agent/agentService.ts';
import type { AgentServerAreaHandlers } from './index.ts';
import { failed, flag, notFound, runLocation } from './replies.ts';

type RunOps = 'createRun' | 'listRuns' | 'getRun' | 'cancelRun';

export function runHandlers(domain: AgentDomain): Pick<AgentServerAreaHandlers, RunOps> {
  return {
    async createRun({ path, body }) {
      const outcome = await domain.createRun(path.thread_id, body);
      if (!outcome.ok) return failed(outcome.failure) as { status: 404 | 409; body: { detail: string } };
      return { status: 200, headers: runLocation(path.thread_id, outcome.value.run_id), body: outcome.value };
    },
    async listRuns({ path, query }) {
      if (!(await domain.getThread(path.thread_id))) return notFound(`Thread with ID ${path.thread_id} not found`);
      const runs = await domain.listRuns(path.thread_id, query);
      const select = query.select as (keyof Run)[] | undefined;
      const body = select?.length ? runs.map((r) => Object.fromEntries(select.map((k) => [k, r[k]])) as RunSelection) : runs;
      return { status: 200, body };
    },
    async getRun({ path }) {
      const run = await domain.getRun(path.thread_id, path.run_id);
      return run ? { status: 200, body: run } : notFound(`Run ${path.run_id} not found`);
    },
    async cancelRun({ path, query }) {
      const outcome = await domain.cancelRun(path.thread_id, path.run_id, query.action ?? 'interrupt');
      if (!outcome.ok) return failed(outcome.failure) as { status: 404 | 409; body: { detail: string } };
      if (flag(query.wait)) await domain.waitForRun(path.thread_id, path.run_id);
      return { status: 202, body: {} };
    },
  };
}
