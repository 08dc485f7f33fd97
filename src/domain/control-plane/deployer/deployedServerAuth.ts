// A server the control plane deploys answers its tenant's API keys only (issue 83): it ran with
// agent-server auth off, so anyone who reached it was served, and the tenant quotas (threads,
// crons, store items, runs in flight, requests a second), which count tenants, never bound
// there. It is given the digests of the keys valid for the deployment's tenant — never a key,
// which the graphs it runs could read — and turns agent-server auth on with them, whatever its
// project file says: a caller sends the same key it manages the deployment with.

/** The deployer's own key to a server it starts, by its digest, and the empty tenant it acts for there. */
export interface ProbeDigest {
  digest: string;
  tenant: string;
}

/**
 * The environment that makes a deployed server answer `tenantId`'s keys, known by their digests,
 * and nothing else; none without `digestsOf` (a listener, which holds no key of the tenant, or
 * AGENTPLANE_DEPLOYMENT_AUTH off). `probe`, the deployer's key for its check that the server
 * loaded every graph, is valid there for a tenant of its own, never `tenantId`: it reads what
 * every tenant may (the system assistants) and nothing of the deployment's.
 */
export function deployedServerAuthEnv(tenantId: string, digestsOf: ((tenant: string) => string[]) | undefined, probe?: ProbeDigest): Record<string, string> {
  if (!digestsOf) return {};
  const entries = digestsOf(tenantId).map((digest) => `${digest}:${tenantId}`);
  if (probe && probe.tenant.toLowerCase() !== tenantId.toLowerCase()) entries.push(`${probe.digest}:${probe.tenant}`);
  return {
    AGENTPLANE_AGENT_SERVER_AUTH: '1',
    AGENTPLANE_API_KEY_DIGESTS: entries.join(','),
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
