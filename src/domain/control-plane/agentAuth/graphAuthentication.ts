// The auth service as a graph reaches it in process (sdk/auth.ts): the tenant is the run's
// owner (agent-server auth on: the caller's tenant), else the tenant the operator names for
// graphs (AGENTPLANE_AGENT_AUTH_TENANT); the redirect goes to this server's public URL.
import type { AgentAuthAnswer, AgentAuthCall } from '../../../shared/agentAuthGlobal.ts';
import type { AuthFlows } from './flows.ts';

export interface GraphAuthenticationOptions {
  flows: AuthFlows;
  /** The owner of the run calling (absent: a run without an owner, or none of this id). */
  runOwner(runId: string): Promise<string | undefined>;
  /** The tenant of runs without an owner (agent-server auth off); null: such runs cannot authenticate. */
  tenant: string | null;
  /** This server's public URL (AGENTPLANE_PUBLIC_URL, else where it listens). */
  baseUrl: () => string | undefined;
}

/**
 * Who a run without an owner acts for when its graph names no user: with agent-server auth off
 * the server has one person at it (the dashboard's user), so the shipped `connected` graph
 * works from the chat with no settings.
 */
export const LOCAL_USER = 'local';

export function graphAuthentication(options: GraphAuthenticationOptions): AgentAuthCall {
  return async (request): Promise<AgentAuthAnswer> => {
    const owner = await options.runOwner(request.runId);
    const userId = request.userId ?? (owner ? undefined : LOCAL_USER);
    if (!userId) throw new Error('authenticate() needs the user: custom auth, configurable.user_id, or options.userId');
    const tenantId = owner || options.tenant;
    if (!tenantId) throw new Error('authenticate() in a graph needs a tenant: turn agent-server auth on, or set AGENTPLANE_AGENT_AUTH_TENANT');
    const baseUrl = options.baseUrl();
    if (!baseUrl) throw new Error('authenticate() in a graph needs the server’s URL: set AGENTPLANE_PUBLIC_URL');
    const answer = await options.flows.authenticate(
      { tenantId, baseUrl },
      {
        provider: request.provider,
        scopes: request.scopes,
        user_id: userId,
        refused_token: request.refusedToken ?? null,
      },
    );
    if (!answer.ok) throw new Error(answer.failure.detail);
    const { status, token, url, auth_id } = answer.value;
    if (status === 'completed' && token) return { status, token };
    return { status: 'pending', url: url ?? '', auth_id: auth_id ?? '' };
  };
}
