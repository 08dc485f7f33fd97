// Listener operations: the listener resource (list, create, get, patch, delete) and what a
// listener sends (heartbeat, revision status and logs, a deleted deployment taken down).
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import { createListener, deleteListener, getListener, listListeners, patchListener, rotateListenerToken } from '../../domain/control-plane/listeners.ts';
import {
  listenerHeartbeat,
  reportDeploymentRemoved,
  reportRevisionLogs,
  reportRevisionStatus,
  type ListenerCall,
  type ListenerDeps,
} from '../../domain/control-plane/listenerReports.ts';
import type { Failure, FailureKind, Outcome } from '../../domain/outcome.ts';
import { answer, failed, tenantOf } from './failures.ts';
import { UNBOUNDED_QUOTAS, type TenantQuotas } from '../../domain/tenantQuotas.ts';

type ListenerHandlers = Pick<
  ControlPlaneHandlers<RequestContext>,
  | 'listListeners'
  | 'createListener'
  | 'getListener'
  | 'patchListener'
  | 'deleteListener'
  | 'rotateListenerToken'
  | 'listenerHeartbeat'
  | 'reportRevisionStatus'
  | 'reportRevisionLogs'
  | 'reportDeploymentRemoved'
>;

/** The listener in the path and the token the runtime found in its own header (X-Listener-Token). */
function callOf(listenerId: string, ctx: RequestContext): ListenerCall {
  if (ctx.credential === undefined) throw new Error(`${ctx.operationId} reached its handler without its credential: its security requirement is missing`);
  return { listenerId, token: ctx.credential };
}

/** 429 with the seconds to wait (Retry-After), else the failure's reply. */
function refused<K extends FailureKind>(failure: Failure<K>) {
  if (failure.kind === 'rate_limited')
    return { status: 429 as const, headers: { 'Retry-After': String(failure.data?.retry_after_s ?? 1) }, body: { detail: failure.detail } };
  return failed(failure as Failure<Exclude<K, 'rate_limited'>>);
}

/** 204, or the failure's reply. */
function noContent<K extends FailureKind>(outcome: Outcome<void, K>) {
  return outcome.ok ? { status: 204 as const } : failed(outcome.failure);
}

export function listenerHandlers(deps: ListenerDeps, quotas: Pick<TenantQuotas, 'listeners'> = UNBOUNDED_QUOTAS): ListenerHandlers {
  const { repo } = deps;
  return {
    listListeners: async ({ query }, ctx) => ({ status: 200, body: await listListeners(repo, tenantOf(ctx), query) }),
    createListener: async ({ body }, ctx) => answer(201, await createListener(repo, tenantOf(ctx), body, quotas)),
    getListener: async ({ path }, ctx) => answer(200, await getListener(repo, tenantOf(ctx), path.listener_id)),
    patchListener: async ({ path, body }, ctx) => answer(200, await patchListener(repo, tenantOf(ctx), path.listener_id, body)),
    deleteListener: async ({ path }, ctx) => noContent(await deleteListener(repo, tenantOf(ctx), path.listener_id)),
    rotateListenerToken: async ({ path }, ctx) => answer(200, await rotateListenerToken(repo, tenantOf(ctx), path.listener_id)),
    listenerHeartbeat: async ({ path }, ctx) => answer(200, await listenerHeartbeat(deps, callOf(path.listener_id, ctx))),
    reportRevisionStatus: async ({ path, body }, ctx) => answer(200, await reportRevisionStatus(deps, callOf(path.listener_id, ctx), path.revision_id, body)),
    reportRevisionLogs: async ({ path, body }, ctx) => {
      const outcome = await reportRevisionLogs(deps, callOf(path.listener_id, ctx), path.revision_id, body);
      return outcome.ok ? { status: 204 } : refused(outcome.failure);
    },
    reportDeploymentRemoved: async ({ path }, ctx) => noContent(await reportDeploymentRemoved(deps, callOf(path.listener_id, ctx), path.deployment_id)),
  };
}
