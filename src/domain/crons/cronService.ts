// Crons: a schedule plus the body of the run each firing creates. This module keeps the
// records and answers the API; the scheduler (scheduler.ts) fires them.
import type { Cron, CronCountRequest, CronCreate, CronSearchRequest, CronUpdate } from '../../../generated/agent-server/types.gen.ts';
import type { ClaimedFiring, CronFilter, CronRecord, CronsRepository } from '../ports/cronsRepository.ts';
import { nowIso } from '../clock.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { uuid4 } from '../agent/ids.ts';
import { KeyedLock, type Locks } from '../keyedLock.ts';
import { createWithin, type TenantQuotas } from '../tenantQuotas.ts';
import { nextDue, scheduleProblem } from './schedule.ts';

export type { CronRecord };

/** What a cron operation can fail with: a missing cron, assistant or thread, or a bad schedule field. */
export type CronOutcome<T> = Outcome<T, 'not_found' | 'unprocessable'>;

/** The run options of a create or update body that go into the cron's payload. */
const PAYLOAD_KEYS = [
  'input',
  'metadata',
  'config',
  'context',
  'webhook',
  'interrupt_before',
  'interrupt_after',
  'multitask_strategy',
  'stream_mode',
  'stream_subgraphs',
  'stream_resumable',
  'checkpoint_during',
  'durability',
] as const;

export interface ResolvedAssistant {
  assistant_id: string;
}

export class CronService {
  private changed: () => void = () => {};

  constructor(
    /** The crons (their searches in SQL on PostgreSQL). */
    private readonly crons: CronsRepository,
    /** The assistant as the cron's owner (its scope) sees it. */
    private readonly resolveAssistant: (scope: string, idOrGraph: string) => Promise<ResolvedAssistant | undefined>,
    /** Whether the thread exists and is the scope's. */
    private readonly threadExists: (scope: string, threadId: string) => Promise<boolean>,
    private readonly now: () => Date = () => new Date(),
    /** How many crons a tenant's scope may hold (domain/tenantQuotas.ts). */
    private readonly quotas: Partial<TenantQuotas> = {},
    /** Serialises a scope's count and creation (across replicas when they share the store). */
    private readonly locks: Locks = new KeyedLock(),
    /** The fewest seconds between two firings of a tenant's cron (AGENTPLANE_MIN_CRON_INTERVAL_S); 1: any. */
    private readonly minIntervalS = 1,
  ) {}

  /** The scope's bound on how often its crons fire: none for the shared space ('') of a server without auth, as its quotas. */
  private intervalOf(scope: string): number {
    return scope === '' ? 1 : this.minIntervalS;
  }

  /** The scheduler re-plans its timer whenever a cron changes. */
  onChange(listener: () => void): void {
    this.changed = listener;
  }

  async create(scope: string, body: CronCreate, threadId: string | null): Promise<Outcome<Cron, 'not_found' | 'unprocessable' | 'quota_exceeded'>> {
    const problem = scheduleProblem(body.schedule, body.timezone, this.intervalOf(scope));
    if (problem) return invalid('schedule', problem);
    const assistant = await this.resolveAssistant(scope, body.assistant_id);
    if (!assistant) return fail('not_found', `Assistant ${body.assistant_id} not found`);
    if (threadId && !(await this.threadExists(scope, threadId))) return fail('not_found', `Thread with ID ${threadId} not found`);
    const at = nowIso();
    const enabled = body.enabled ?? true;
    const record: CronRecord = {
      scope,
      cron_id: uuid4(),
      assistant_id: assistant.assistant_id,
      thread_id: threadId,
      schedule: body.schedule,
      timezone: body.timezone ?? null,
      end_time: body.end_time ?? null,
      created_at: at,
      updated_at: at,
      payload: { assistant_id: assistant.assistant_id, ...pick(body) },
      user_id: null,
      next_run_date: null,
      metadata: body.metadata ?? {},
      enabled,
      on_run_completed: threadId ? null : (body.on_run_completed ?? 'delete'),
    };
    record.next_run_date = this.plan(record, this.now());
    return createWithin(
      'crons',
      scope,
      this.quotas,
      this.locks,
      () => this.crons.count({ scope }),
      async () => {
        await this.crons.create(record);
        this.changed();
        return ok(toApi(record));
      },
    );
  }

  async update(scope: string, cronId: string, body: CronUpdate): Promise<CronOutcome<Cron>> {
    const current = await this.get(scope, cronId);
    if (!current) return missing(cronId);
    const schedule = body.schedule ?? current.schedule;
    const timezone = body.timezone !== undefined ? body.timezone : current.timezone;
    // a schedule stored before the bound is kept (its firings are spaced by the claim): only one sent is held to it
    const problem = scheduleProblem(schedule, timezone, body.schedule !== undefined ? this.intervalOf(scope) : 1);
    if (problem) return invalid(body.schedule !== undefined ? 'schedule' : 'timezone', problem);
    const next: CronRecord = {
      ...current,
      schedule,
      timezone,
      end_time: body.end_time !== undefined ? body.end_time : current.end_time,
      enabled: body.enabled ?? current.enabled,
      on_run_completed: current.thread_id ? null : (body.on_run_completed ?? current.on_run_completed),
      metadata: body.metadata ?? current.metadata,
      payload: { ...current.payload, ...pick(body) },
      updated_at: nowIso(),
    };
    next.next_run_date = this.plan(next, this.now());
    await this.crons.replace(next);
    this.changed();
    return ok(toApi(next));
  }

  async delete(scope: string, cronId: string): Promise<boolean> {
    if (!(await this.get(scope, cronId))) return false;
    await this.crons.delete(cronId);
    this.changed();
    return true;
  }

  async search(scope: string, query: CronSearchRequest): Promise<Partial<Cron>[]> {
    const filter = await this.filter(scope, query);
    const found = await this.crons.search(filter, {
      sortBy: query.sort_by ?? 'created_at',
      order: query.sort_order ?? 'desc',
      offset: query.offset ?? 0,
      limit: query.limit ?? 10,
    });
    const page = found.map(toApi);
    if (!query.select?.length) return page;
    return page.map((cron) => Object.fromEntries(query.select!.map((field) => [field, cron[field as keyof Cron]])) as Partial<Cron>);
  }

  async count(scope: string, query: CronCountRequest): Promise<number> {
    return this.crons.count(await this.filter(scope, query));
  }

  /** Every enabled cron with a due time, for the scheduler. */
  async due(): Promise<CronRecord[]> {
    return this.crons.due();
  }

  /**
   * Claims one firing: moves next_run_date past `now` before the run is created, so a crash
   * right after never fires the same due time twice. Resolves to the record as it was when
   * claimed, or undefined when it is no longer due (deleted, disabled, already claimed).
   */
  claim(cronId: string, now: Date): Promise<ClaimedFiring | undefined> {
    return this.crons.claimDue(cronId, now, (current) => this.plan(current, now, current.next_run_date));
  }

  /** The next due time after `after`, and (a firing) at least the scope's interval after `lastDue`. */
  private plan(record: CronRecord, after: Date, lastDue: string | null = null): string | null {
    if (!record.enabled) return null;
    const last = lastDue ? new Date(lastDue) : null;
    return nextDue(record.schedule, record.timezone, after, record.end_time, last, this.intervalOf(record.scope))?.toISOString() ?? null;
  }

  private async get(scope: string, cronId: string): Promise<CronRecord | undefined> {
    const record = await this.crons.get(cronId);
    return record && record.scope === scope ? record : undefined;
  }

  /** The request's filters on the scope's crons (an assistant named by graph is its id). */
  private async filter(scope: string, query: CronSearchRequest | CronCountRequest): Promise<CronFilter> {
    const assistant = query.assistant_id ? ((await this.resolveAssistant(scope, query.assistant_id))?.assistant_id ?? query.assistant_id) : undefined;
    const enabled: unknown = 'enabled' in query ? query.enabled : undefined;
    return {
      scope,
      ...(assistant ? { assistant_id: assistant } : {}),
      ...(query.thread_id ? { thread_id: query.thread_id } : {}),
      ...(typeof enabled === 'boolean' ? { enabled } : {}),
      ...(query.metadata && typeof query.metadata === 'object' ? { metadata: query.metadata as Record<string, unknown> } : {}),
    };
  }
}

function pick(body: CronCreate | CronUpdate): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const key of PAYLOAD_KEYS) if ((body as Record<string, unknown>)[key] !== undefined) payload[key] = (body as Record<string, unknown>)[key];
  return payload;
}

function toApi(record: CronRecord): Cron {
  const { scope: _scope, ...cron } = record;
  return cron;
}

const invalid = (field: string, detail: string) => fail('unprocessable', detail, { field });
const missing = (cronId: string) => fail('not_found', `Cron with ID ${cronId} not found`);
