// Listeners of a tenant: registering, reading, patching and removing them (upstream's
// `/v2/listeners` resource), and issuing each its own token (listenerTokens.ts). What a
// listener reports and pulls is in listenerReports.ts.
import { randomUUID } from 'node:crypto';
import type {
  Listener,
  ListenerCreate,
  ListenerList,
  ListenerPatch,
  ListenerWithToken,
  ListListenersQuery,
} from '../../../generated/control-plane/types.gen.ts';
import { timestamp } from '../clock.ts';
import { ok, type Outcome } from '../outcome.ts';
import { conflict, invalid, listenerNotFound } from './failures.ts';
import type { ControlPlaneRepository, DeploymentRecord, ListenerRecord } from './records.ts';
import { issueToken } from './listenerTokens.ts';
import { createWithin, type TenantQuotas } from '../tenantQuotas.ts';

/** The wire view: the record minus what only the store needs (its token's hash above all). */
export function toListener({ tenant_id: _tenant, tenant_compute: _key, token_hash: _hash, ...listener }: ListenerRecord): Listener {
  return listener;
}

/** The listener with the token just issued: the only view that carries it. */
const withToken = (record: ListenerRecord, token: string): ListenerWithToken => ({ ...toListener(record), token });

/** Another tenant's listener is reported as missing, like one that does not exist. */
export async function listenerOf(repo: ControlPlaneRepository, tenantId: string, id: string): Promise<Outcome<ListenerRecord, 'not_found'>> {
  const record = await repo.listeners.get(id);
  return record && record.tenant_id === tenantId ? ok(record) : listenerNotFound(id);
}

/** The tenant's deployments a listener reconciles (those naming it in `source_config.listener_id`). */
export function deploymentsOfListener(repo: ControlPlaneRepository, tenantId: string, listenerId: string): Promise<DeploymentRecord[]> {
  return repo.deployments.ofListener(tenantId, listenerId);
}

export async function listListeners(repo: ControlPlaneRepository, tenantId: string, query: ListListenersQuery): Promise<ListenerList> {
  const offset = query.offset ?? 0;
  const records = await repo.listeners.newestFirst(tenantId, { offset, limit: query.limit ?? 20 });
  return { resources: records.map(toListener), offset: offset + records.length };
}

export async function getListener(repo: ControlPlaneRepository, tenantId: string, id: string): Promise<Outcome<Listener, 'not_found'>> {
  const found = await listenerOf(repo, tenantId, id);
  return found.ok ? ok(toListener(found.value)) : found;
}

/** The new listener with its token, shown this once. */
export async function createListener(
  repo: ControlPlaneRepository,
  tenantId: string,
  body: ListenerCreate,
  quotas: Pick<TenantQuotas, 'listeners'>,
): Promise<Outcome<ListenerWithToken, 'conflict' | 'quota_exceeded'>> {
  const tenantCompute = `${tenantId}/${body.compute_id}`;
  // counted up to one past the bound: the count and the write hold the tenant's lock of the quota
  const held = async () => (await repo.listeners.newestFirst(tenantId, { offset: 0, limit: quotas.listeners + 1 })).length;
  return createWithin('listeners', tenantId, quotas, repo.locks, held, () =>
    repo.locks.run(`listener:${tenantCompute}`, async () => {
      if (await repo.listeners.computeTaken(tenantCompute)) {
        return conflict(`A listener with compute_id ${body.compute_id} already exists.`);
      }
      const now = timestamp();
      const { token, hash } = issueToken();
      const record: ListenerRecord = {
        id: randomUUID(),
        tenant_id: tenantId,
        tenant_compute: tenantCompute,
        compute_type: body.compute_type,
        compute_id: body.compute_id,
        compute_config: { k8s_namespaces: body.compute_config.k8s_namespaces ?? null },
        version: body.version ?? null,
        status: 'AWAITING_CONNECTION',
        last_heard_at: null,
        created_at: now,
        updated_at: now,
        token_hash: hash,
      };
      await repo.listeners.put(record);
      return ok(withToken(record, token));
    }),
  );
}

export async function patchListener(repo: ControlPlaneRepository, tenantId: string, id: string, body: ListenerPatch): Promise<Outcome<Listener, 'not_found'>> {
  return repo.locks.run(`listener:${id}`, async () => {
    const found = await listenerOf(repo, tenantId, id);
    if (!found.ok) return found;
    const next: ListenerRecord = {
      ...found.value,
      ...(body.version !== undefined ? { version: body.version } : {}),
      ...(body.compute_config !== undefined ? { compute_config: { k8s_namespaces: body.compute_config.k8s_namespaces ?? null } } : {}),
      updated_at: timestamp(),
    };
    await repo.listeners.put(next);
    return ok(toListener(next));
  });
}

/** A new token for the tenant's listener; the old one stops working with this write. */
export async function rotateListenerToken(repo: ControlPlaneRepository, tenantId: string, id: string): Promise<Outcome<ListenerWithToken, 'not_found'>> {
  return repo.locks.run(`listener:${id}`, async () => {
    const found = await listenerOf(repo, tenantId, id);
    if (!found.ok) return found;
    const { token, hash } = issueToken();
    const next: ListenerRecord = { ...found.value, token_hash: hash, updated_at: timestamp() };
    await repo.listeners.put(next);
    return ok(withToken(next, token));
  });
}

/** A listener with deployments would leave them with nothing to reconcile them: refused. */
export async function deleteListener(repo: ControlPlaneRepository, tenantId: string, id: string): Promise<Outcome<void, 'not_found' | 'invalid'>> {
  return repo.locks.run(`listener:${id}`, async () => {
    const found = await listenerOf(repo, tenantId, id);
    if (!found.ok) return found;
    const assigned = await deploymentsOfListener(repo, tenantId, id);
    if (assigned.length > 0) return invalid(`Listener ID ${id} still reconciles ${assigned.length} deployment(s); delete them first.`);
    await repo.listeners.delete(id);
    return ok(undefined);
  });
}
