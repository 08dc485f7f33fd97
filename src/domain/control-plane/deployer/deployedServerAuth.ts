// A server the control plane deploys answers its tenant's API keys only (issue 83): it ran with
// agent-server auth off, so anyone who reached it was served, and the tenant quotas (threads,
// crons, store items, runs in flight, requests a second), which count tenants, never bound
// there. It is given the digests of the keys valid for the deployment's tenant — never a key,
// which the graphs it runs could read — and turns agent-server auth on with them, whatever its
// project file says: a caller sends the same key it manages the deployment with.

/**
 * The environment that makes a deployed server answer `tenantId`'s keys, known by their digests,
 * and nothing else; none without `digestsOf` (a listener, which holds no key of the tenant, or
 * AGENTPLANE_DEPLOYMENT_AUTH off).
 */
export function deployedServerAuthEnv(tenantId: string, digestsOf: ((tenant: string) => string[]) | undefined): Record<string, string> {
  if (!digestsOf) return {};
  const digests = digestsOf(tenantId);
  return {
    AGENTPLANE_AGENT_SERVER_AUTH: '1',
    AGENTPLANE_API_KEY_DIGESTS: digests.map((digest) => `${digest}:${tenantId}`).join(','),
  };
}

/**
 * The deployment's secrets without those named as what the deployer sets of the server itself
 * (`serverEnv`: its auth, its role, its URL): podman puts a secret (`--secret …,type=env`) over an
 * `--env` of the same name, so a tenant's secret `AGENTPLANE_AGENT_SERVER_AUTH=0` or an empty
 * `AGENTPLANE_API_KEY_DIGESTS` would turn its auth off (and its quotas with it), and
 * `AGENTPLANE_CONTROL_PLANE=on` would make it serve a control plane.
 */
export function secretsUnderServerSettings(secrets: Record<string, string>, serverEnv: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).filter(([name]) => !Object.hasOwn(serverEnv, name)));
}
