// What deployers ask of a deployment once it runs: whether it answers its health check and
// serves every graph of its project (the port it is published on comes from freePort.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { keyDigest } from '../../../runtime/security/auth.ts';

/**
 * Whether a process found alive after a restart serves `url`: asked up to `tries` times, 2 s
 * each, a second apart. A live agent server on a busy machine may miss one 2 s answer; starting
 * it again instead would only find its port taken.
 */
export async function stillServes(url: string, tries = 5): Promise<boolean> {
  for (let i = 0; i < tries; i += 1) {
    if (await answersOk(url)) return true;
    if (i < tries - 1) await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return false;
}

/** Whether `url`/ok answers 200 within 2 s. */
export async function answersOk(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/ok`, { signal: AbortSignal.timeout(2000) })).status === 200;
  } catch {
    return false;
  }
}

/**
 * The key a deployer asks a server it started which graphs it loaded with. A deployed server
 * answers its tenant's keys only (deployedServerAuth.ts), and the deployer holds none of them:
 * it makes this one for each server it starts and gives the server its digest alone, bound to
 * a tenant of its own that owns nothing there (system assistants are everyone's, so the probe
 * sees them and nothing of the deployment's tenant). The key stays in the deployer's memory:
 * the server and the graphs it runs see only its digest, and it is valid on that server alone.
 */
export interface ProbeKey {
  key: string;
  digest: string;
  tenant: string;
}

export function newProbeKey(): ProbeKey {
  const key = `ap_probe_${randomBytes(24).toString('base64url')}`;
  return { key, digest: keyDigest(key), tenant: randomUUID() };
}

/**
 * The graphs of `graphs` the agent server at `url` has no system assistant for (it started
 * without them), asked with the deployer's probe key (`key`) when the server wants one;
 * `send` is the fetch to ask with.
 */
export async function missingGraphs(url: string, graphs: string[], key?: string, send: typeof fetch = fetch): Promise<string[]> {
  if (graphs.length === 0) return [];
  const res = await send(`${url}/assistants/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify({ limit: 1000, metadata: { created_by: 'system' } }),
    signal: AbortSignal.timeout(5000),
  });
  // an image that is not agentplane may have auth of its own, which no probe key opens: /ok has to do
  if (res.status === 401 || res.status === 403) return [];
  const assistants = (await res.json()) as { graph_id: string }[];
  const loaded = new Set(assistants.map((a) => a.graph_id));
  return graphs.filter((g) => !loaded.has(g));
}
