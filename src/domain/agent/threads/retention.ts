// Retention: what the server forgets on its own. Threads with a `ttl` expire `ttl_minutes`
// after their last update (strategy `delete` or `keep_latest`); with `checkpointer.ttl`
// in the project file, checkpoints older than `default_ttl` minutes are deleted, except
// each thread's latest (its current state stays; upstream drops an inactive thread's
// checkpoints altogether — see docs/agent-server.md). One sweep does both.
import type { StoreCheckpointer } from '../checkpoints/checkpointer.ts';
import type { PlainStateStore } from '../checkpoints/plainState.ts';
import { ownerOf } from '../records.ts';
import type { ThreadsRepository } from '../../ports/threadsRepository.ts';
import type { Threads } from './threads.ts';

export interface RetentionSettings {
  /** Checkpoints older than this many minutes are deleted (the latest of each thread stays); null keeps all. */
  checkpointTtlMinutes: number | null;
  sweepIntervalMinutes: number;
}

/** The project file's `checkpointer.ttl`, with the defaults. */
export function retentionSettings(checkpointer: unknown): RetentionSettings {
  const ttl = (checkpointer as { ttl?: { default_ttl?: number | null; sweep_interval_minutes?: number } } | undefined)?.ttl;
  return { checkpointTtlMinutes: ttl?.default_ttl ?? null, sweepIntervalMinutes: ttl?.sweep_interval_minutes ?? 5 };
}

export interface SweepResult {
  threads: number;
  checkpoints: number;
}

export class RetentionSweep {
  constructor(
    private readonly deps: {
      threads: Pick<ThreadsRepository, 'withTtl'>;
      threadsOf: (owner: string) => Pick<Threads, 'prune'>;
      plain: PlainStateStore;
      checkpointer: StoreCheckpointer;
    },
    readonly settings: RetentionSettings,
  ) {}

  async sweep(nowMs = Date.now()): Promise<SweepResult> {
    // expired threads by owner, each pruned through its owner's own view
    const expired = new Map<string, { delete: string[]; keep_latest: string[] }>();
    for (const thread of await this.deps.threads.withTtl()) {
      if (!thread.ttl || thread.status === 'busy') continue;
      if (Date.parse(thread.updated_at) + thread.ttl.ttl_minutes * 60_000 > nowMs) continue;
      const owner = ownerOf(thread);
      let lists = expired.get(owner);
      if (!lists) expired.set(owner, (lists = { delete: [], keep_latest: [] }));
      lists[thread.ttl.strategy].push(thread.thread_id);
    }
    let threads = 0;
    for (const [owner, lists] of expired) {
      for (const strategy of ['delete', 'keep_latest'] as const) {
        if (lists[strategy].length) threads += await this.deps.threadsOf(owner).prune({ thread_ids: lists[strategy], strategy });
      }
    }
    let checkpoints = 0;
    const { checkpointTtlMinutes } = this.settings;
    if (checkpointTtlMinutes !== null) {
      const cutoff = nowMs - checkpointTtlMinutes * 60_000;
      checkpoints += await this.deps.checkpointer.expireBefore(cutoff);
      checkpoints += await this.deps.plain.expireBefore(new Date(cutoff).toISOString());
    }
    return { threads, checkpoints };
  }
}
