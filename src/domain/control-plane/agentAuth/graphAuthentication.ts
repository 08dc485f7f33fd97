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

export function graphAuthentication(options: GraphAuthenticationOptions): AgentAuthCall {
  return async (request): Promise<AgentAuthAnswer> => {
    const tenantId = (await options.runOwner(request.runId)) || options.tenant;
    if (!tenantId) throw new Error('authenticate() in a graph needs a tenant: turn agent-server auth on, or set AGENTPLANE_AGENT_AUTH_TENANT');
    const baseUrl = options.baseUrl();
    if (!baseUrl) throw new Error('authenticate() in a graph needs the server’s URL: set AGENTPLANE_PUBLIC_URL');
    const answer = await options.flows.authenticate(
      { tenantId, baseUrl },
      {
        provider: request.provider,
        scopes: request.scopes,
        user_id: request.userId,
        refused_token: request.refusedToken ?? null,
      },
    );
    if (!answer.ok) throw new Error(answer.failure.detail);
    const { status, token, url, auth_id } = answer.value;
    if (status === 'completed' && token) return { status, token };
    return { status: 'pending', url: url ?? '', auth_id: auth_id ?? '' };
  };
}
