// A revision's Kubernetes manifests as the API shows them: rendered as the Kubernetes
// deployers would apply them, checked against the schemas, secret values masked.
import type { RevisionManifests } from '../../../generated/control-plane/types.gen.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import type { ControlPlaneRepository } from './records.ts';
import { deploymentNotFound, revisionNotFound } from './failures.ts';
import { renderManifests } from './kubernetes/renderManifests.ts';
import { workloadOf, type WorkloadPolicy } from './workloadPolicy.ts';
import { deployedServerAuthEnv } from './deployer/deployedServerAuth.ts';

const MASK = '********';

export interface RenderSettings {
  defaultNamespace: string;
  postgresImage: string;
  /** What the operator lets each tenant run (workloadPolicy.ts). */
  policy: WorkloadPolicy;
  /** The digests of a tenant's keys, which the servers deployed for it answer; none when they are left open (deployedServerAuth.ts). */
  keyDigestsOf?: (tenant: string) => string[];
}

/** One reason the revision cannot be rendered, and where it comes from (a loc as in a 422). */
export interface RenderProblem {
  loc: string[];
  msg: string;
}

export async function revisionManifests(
  repo: ControlPlaneRepository,
  settings: RenderSettings,
  tenantId: string,
  deploymentId: string,
  revisionId: string,
): Promise<Outcome<RevisionManifests, 'not_found' | 'unprocessable'>> {
  const deployment = await repo.deployments.ofTenant(tenantId, deploymentId);
  if (!deployment) return deploymentNotFound(deploymentId);
  const revision = await repo.revisions.get(revisionId);
  if (!revision || revision.deployment_id !== deploymentId) return revisionNotFound(revisionId);
  const { policy, keyDigestsOf, ...render } = settings;
  // the server's auth as the deployers give it, its key digests masked as the secrets are
  const serverAuth = deployedServerAuthEnv(tenantId, keyDigestsOf && ((tenant) => keyDigestsOf(tenant).map(() => MASK)));
  const rendered = renderManifests({ deployment, revision, ...render, databasePassword: MASK, workload: workloadOf(policy, tenantId), serverAuth });
  let problems: RenderProblem[];
  if (!rendered.ok) {
    problems = rendered.refused.map((r) => ({
      loc: r.loc ? r.loc.map(String) : r.field === 'image_uri' ? ['source_revision_config', 'image_uri'] : ['source_config', 'resource_spec', r.field],
      msg: r.message,
    }));
  } else {
    // the Kubernetes schemas load on the first look, not with every server
    const { validateManifests } = await import('./kubernetes/validateManifests.ts');
    problems = validateManifests(rendered.manifests).map((p) => ({ loc: ['manifests', p.object], msg: p.message }));
  }
  if (!rendered.ok || problems.length > 0) return fail('unprocessable', problems.map((p) => p.msg).join(' '), { problems });
  const manifests = rendered.manifests.map((m) =>
    m.kind === 'Secret' ? { ...m, stringData: Object.fromEntries(Object.keys(m.stringData as object).map((k) => [k, MASK])) } : m,
  );
  return ok({ namespace: rendered.namespace, manifests });
}
