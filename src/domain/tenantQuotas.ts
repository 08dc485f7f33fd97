// How much of the agent server one tenant may hold: threads, crons, store items (and the bytes
// they take) and runs in flight (pending or running); and of the control plane: listeners and OAuth providers (its
// deployments and replicas: control-plane/deploymentQuotas.ts). Each up to
// a bound the operator sets (runtime/config.ts, docs/configuration.md). One more than the bound
// is refused before anything is written, its detail naming the quota and the setting that
// raises it. Tenants are the owners of a server with agent-server auth on; the one shared
// space of a server without it ('') is no tenant, and nothing is counted for it.
import type { Locks } from './keyedLock.ts';
import { fail, ok, type FailureKind, type Outcome } from './outcome.ts';

export interface TenantQuotas {
  threads: number;
  crons: number;
  storeItems: number;
  /** Bytes of the tenant's store items together (memory/itemBytes.ts), a bound rather than a count. */
  storeBytes: number;
  runsInFlight: number;
  listeners: number;
  authProviders: number;
}

export type Quota = keyof TenantQuotas;

/** Each quota's setting, what it counts, and how the tenant makes room. */
export const QUOTA_SETTINGS: Record<Quota, { setting: string; counts: string; room: string }> = {
  threads: { setting: 'AGENTPLANE_MAX_THREADS_PER_TENANT', counts: 'threads', room: 'delete some' },
  crons: { setting: 'AGENTPLANE_MAX_CRONS_PER_TENANT', counts: 'crons', room: 'delete some' },
  storeItems: { setting: 'AGENTPLANE_MAX_STORE_ITEMS_PER_TENANT', counts: 'store items', room: 'delete some' },
  storeBytes: { setting: 'AGENTPLANE_MAX_STORE_BYTES_PER_TENANT', counts: 'bytes of store items', room: 'delete or shrink some' },
  runsInFlight: {
    setting: 'AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT',
    counts: 'runs in flight (pending or running)',
    room: 'wait for some to end, cancel some',
  },
  listeners: { setting: 'AGENTPLANE_MAX_LISTENERS_PER_TENANT', counts: 'listeners', room: 'delete some' },
  authProviders: { setting: 'AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT', counts: 'OAuth providers', room: 'delete some' },
};

/** No bound at all (a domain made without quotas: tests of other rules, tools). */
export const UNBOUNDED_QUOTAS: TenantQuotas = {
  threads: Infinity,
  crons: Infinity,
  storeItems: Infinity,
  storeBytes: Infinity,
  runsInFlight: Infinity,
  listeners: Infinity,
  authProviders: Infinity,
};

/**
 * Whether `owner` may have one more of `quota`: `held` counts what it has (asked only for a
 * tenant, and only while the bound is finite). The failure names the quota and its setting.
 */
export async function roomFor(
  quota: Quota,
  owner: string,
  quotas: Partial<TenantQuotas>,
  held: () => Promise<number>,
): Promise<Outcome<void, 'quota_exceeded'>> {
  if (unbounded(quota, owner, quotas)) return ok(undefined);
  const bound = quotas[quota]!;
  if ((await held()) < bound) return ok(undefined);
  const { setting, counts, room } = QUOTA_SETTINGS[quota];
  return fail(
    'quota_exceeded',
    `Quota reached: this tenant holds ${bound} ${counts}, the most it may (${setting}); ${room}, or ask the operator to raise ${setting}.`,
    {
      quota,
      setting,
      limit: bound,
    },
  );
}

/** Whether `owner` may hold any number of `quota`'s things (no bound set, or the shared space of auth off). */
function unbounded(quota: Quota, owner: string, quotas: Partial<TenantQuotas>): boolean {
  return owner === '' || (quotas[quota] ?? Infinity) === Infinity;
}

/**
 * `create` (which adds one of `quota` for `owner`) done only while there is room for it: the
 * count and the creation hold the owner's lock of that quota, so creations sent at once cannot
 * each find room for one and together pass the bound. Nothing is counted or locked for '', nor
 * with no bound set (the default): `create`'s own promise is returned, with no frame of this
 * function's around it (a created thread's path, issue 86).
 */
export function createWithin<T, K extends FailureKind>(
  quota: Quota,
  owner: string,
  quotas: Partial<TenantQuotas>,
  locks: Locks,
  held: () => Promise<number>,
  create: () => Promise<Outcome<T, K>>,
): Promise<Outcome<T, K | 'quota_exceeded'>> {
  if (unbounded(quota, owner, quotas)) return create();
  return locks.run(`quota:${quota}:${owner}`, async () => {
    const room = await roomFor(quota, owner, quotas, held);
    return room.ok ? create() : room;
  });
}

/**
 * Whether `owner` may go from `held` to `after` of a quota measured in amounts (bytes) rather
 * than things: a change that does not grow what it holds is always room (an owner over a bound
 * the operator lowered can still shrink). Asked under the owner's lock of the quota.
 */
export function roomForAmount(quota: Quota, owner: string, quotas: Partial<TenantQuotas>, held: number, after: number): Outcome<void, 'quota_exceeded'> {
  const bound = quotas[quota] ?? Infinity;
  if (owner === '' || after <= bound || after <= held) return ok(undefined);
  const { setting, counts, room } = QUOTA_SETTINGS[quota];
  return fail(
    'quota_exceeded',
    `Quota reached: this tenant would hold ${after} ${counts}, more than the ${bound} it may (${setting}); ${room}, or ask the operator to raise ${setting}.`,
    { quota, setting, limit: bound },
  );
}
