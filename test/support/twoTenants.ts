// One area in process (test/support/area.ts) with agent-server auth on and two tenants, A and
// B, each with a key of its own: for tests of what one tenant can do to another.
import { randomUUID } from 'node:crypto';
import type { AreaName } from '../../src/compose/area.ts';
import type { InProcessApp } from './server.ts';
import { areaApp } from './area.ts';
import { testProject } from '../fixtures/agent-server/project.ts';

export interface TwoTenants {
  app: InProcessApp;
  keyA: string;
  keyB: string;
  /** A request as the tenant of `key` (a JSON body when given). */
  send(key: string, method: string, path: string, body?: unknown): Promise<Response>;
}

/** `area` alone (A2A with the agent server), its two tenants' keys set beside `env`. */
export async function twoTenants(area: AreaName, env: Record<string, string> = {}): Promise<TwoTenants> {
  const keyA = `key-a-${randomUUID()}`;
  const keyB = `key-b-${randomUUID()}`;
  const app = await areaApp(area, {
    dataDir: null,
    project: testProject,
    env: { AGENTPLANE_AGENT_SERVER_AUTH: '1', AGENTPLANE_API_KEYS: `${keyA}:${randomUUID()},${keyB}:${randomUUID()}`, ...env },
  });
  const send = (key: string, method: string, path: string, body?: unknown) =>
    app.fetch(path, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { app, keyA, keyB, send };
}

/** A run of a tenant's, by its thread. */
export interface TenantRun {
  thread_id: string;
  run_id: string;
}

/** The statuses of `runs` as the tenant of `key` reads them. */
export function runStatuses(tenants: TwoTenants, key: string, runs: TenantRun[]): Promise<string[]> {
  return Promise.all(
    runs.map(async ({ thread_id, run_id }) => {
      const res = await tenants.send(key, 'GET', `/threads/${thread_id}/runs/${run_id}`);
      return ((await res.json()) as { status: string }).status;
    }),
  );
}

/** Cancels `runs` of the tenant of `key`, each waited for until it has ended. */
export async function cancelRuns(tenants: TwoTenants, key: string, runs: TenantRun[]): Promise<void> {
  for (const { thread_id, run_id } of runs) {
    const cancelled = await tenants.send(key, 'POST', `/threads/${thread_id}/runs/${run_id}/cancel?wait=true`, {});
    if (!cancelled.ok) throw new Error(`cancel of ${run_id}: ${cancelled.status}`);
  }
}
