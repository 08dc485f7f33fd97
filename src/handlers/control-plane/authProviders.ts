// OAuth provider operations (auth service v2).
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import {
  createAuthProvider,
  deleteAuthProvider,
  getAuthProvider,
  listAuthProviders,
  patchAuthProvider,
  type ProviderRules,
} from '../../domain/control-plane/authProviders.ts';
import type { ControlPlaneRepository } from '../../domain/control-plane/records.ts';
import { answer, failed, tenantOf } from './failures.ts';

type ProviderHandlers = Pick<
  ControlPlaneHandlers<RequestContext>,
  'listAuthProviders' | 'createAuthProvider' | 'getAuthProvider' | 'patchAuthProvider' | 'deleteAuthProvider'
>;

/** `forget`: what the auth service got through a provider goes with it; `rules`: its URLs' scheme and its secret's key. */
export function authProviderHandlers(
  repo: ControlPlaneRepository,
  forget: (providerRecordId: string) => Promise<void>,
  rules: ProviderRules,
): ProviderHandlers {
  return {
    listAuthProviders: async (_request, ctx) => ({ status: 200, body: await listAuthProviders(repo, tenantOf(ctx)) }),
    // 200, not 201, as upstream
    createAuthProvider: async ({ body }, ctx) => answer(200, await createAuthProvider(repo, tenantOf(ctx), body, rules)),
    getAuthProvider: async ({ path }, ctx) => answer(200, await getAuthProvider(repo, tenantOf(ctx), path.provider_id)),
    patchAuthProvider: async ({ path, body }, ctx) => answer(200, await patchAuthProvider(repo, tenantOf(ctx), path.provider_id, body, rules)),
    deleteAuthProvider: async ({ path }, ctx) => {
      const deleted = await deleteAuthProvider(repo, tenantOf(ctx), path.provider_id, forget);
      return deleted.ok ? { status: 200, body: {} } : failed(deleted.failure);
    },
  };
}
