// Listener operations: the listener resource (list, create, get, patch, delete) and what a
// listener sends (heartbeat, revision status and logs, a deleted deployment taken down).
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import { createListener, deleteListener, getListener, listListeners, patchListener } from '../../domain/control-plane/listeners.ts';
import {
  listenerHeartbeat,
  reportDeploymentRemoved,
  reportRevisionLogs,
  reportRevisionStatus,
  type ListenerDeps,
} from '../../domain/control-plane/listenerReports.ts';
import type { FailureKind, Outcome } from '../../domain/outcome.ts';
import { answer, failed, tenantOf } from './failures.ts';

type ListenerHandlers = Pick<
  ControlPlaneHandlers<RequestContext>,
  | 'listListeners'
  | 'createListener'
  | 'getListener'
  | 'patchListener'
  | 'deleteListener'
  | 'listenerHeartbeat'
  | 'reportRevisionStatus'
  | 'reportRevisionLogs'
  | 'reportDeploymentRemoved'
>;

/** 204, or the failure's reply. */
function noContent<K extends FailureKind>(outcome: Outcome<void, K>) {
  return outcome.ok ? { status: 204 as const } : failed(outcome.failure);
}

export function listenerHandlers(deps: ListenerDeps): ListenerHandlers {
  const { repo } = deps;
  return {
    listListeners: async ({ query }, ctx) => ({ status: 200, body: await listListeners(repo, tenantOf(ctx), query) }),
    createListener: async ({ body }, ctx) => answer(201, await createListener(repo, tenantOf(ctx), body)),
    getListener: async ({ path }, ctx) => answer(200, await getListener(repo, tenantOf(ctx), path.listener_id)),
    patchListener: async ({ path, body }, ctx) => answer(200, await patchListener(repo, tenantOf(ctx), path.listener_id, body)),
    deleteListener: async ({ path }, ctx) => noContent(await deleteListener(repo, tenantOf(ctx), path.listener_id)),
    listenerHeartbeat: async ({ path }, ctx) => answer(200, await listenerHeartbeat(deps, tenantOf(ctx), path.listener_id)),
    reportRevisionStatus: async ({ path, body }, ctx) => answer(200, await reportRevisionStatus(deps, tenantOf(ctx), path.listener_id, path.revision_id, body)),
    reportRevisionLogs: async ({ path, body }, ctx) => noContent(await reportRevisionLogs(deps, tenantOf(ctx), path.listener_id, path.revision_id, body)),
    reportDeploymentRemoved: async ({ path }, ctx) => noContent(await reportDeploymentRemoved(deps, tenantOf(ctx), path.listener_id, path.deployment_id)),
  };
}
