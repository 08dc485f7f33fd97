// Crons: createCron, createThreadCron, searchCrons, countCrons, updateCron, deleteCron.
import type { CronService } from '../../domain/crons/cronService.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import type { OwnerOf } from './owner.ts';
import { failed } from './failures.ts';

type CronOps = 'createCron' | 'createThreadCron' | 'searchCrons' | 'countCrons' | 'updateCron' | 'deleteCron';

export function cronHandlers(crons: CronService, ownerOf: OwnerOf): Pick<AgentServerAreaHandlers, CronOps> {
  return {
    async createCron({ body }, ctx) {
      const outcome = await crons.create(ownerOf(ctx), body, null);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async createThreadCron({ path, body }, ctx) {
      const outcome = await crons.create(ownerOf(ctx), body, path.thread_id);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async searchCrons({ body }, ctx) {
      return { status: 200, body: await crons.search(ownerOf(ctx), body ?? {}) };
    },
    async countCrons({ body }, ctx) {
      return { status: 200, body: await crons.count(ownerOf(ctx), body ?? {}) };
    },
    async updateCron({ path, body }, ctx) {
      const outcome = await crons.update(ownerOf(ctx), path.cron_id, body);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async deleteCron({ path }, ctx) {
      return (await crons.delete(ownerOf(ctx), path.cron_id)) ? { status: 204 } : { status: 404, body: { detail: `Cron with ID ${path.cron_id} not found` } };
    },
  };
}
