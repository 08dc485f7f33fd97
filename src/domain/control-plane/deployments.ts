// Creating, reading, listing and deleting deployments. Writes to one deployment run under
// its lock (records.ts), so they never interleave with a PATCH or a deploy phase.
import { randomUUID } from 'node:crypto';
import type { Deployment, DeploymentCreate, DeploymentList, ListDeploymentsQuery } from '../../../generated/control-plane/types.gen.ts';
import { timestamp } from '../clock.ts';
import type { RevisionDriver } from './deployer/types.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { targetProblems, type DeployTargetKind, type TargetRuleInput } from './targetRules.ts';
import { conflict, deploymentNotFound, invalid } from './failures.ts';
import { listenerOf } from './listeners.ts';
import { firstRevision } from './newRevision.ts';
import { logDeploymentCreated, logDeploymentDeleted, logDeploymentStatus } from './transitionLog.ts';
import type { Logger } from '../ports/logger.ts';
import { deepFreeze } from '../freeze.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type RevisionRecord } from './records.ts';
import { checkComplete, checkResourceSpec, checkSecretNames, checkSourceOnlyFields, checkTenantBoundary, revisionInput } from './sourceRules.ts';
import { toDeployment } from './views.ts';
import { deploymentFilter } from './deploymentFilter.ts';
import { DEFAULT_WORKLOAD_POLICY, workloadOf, type WorkloadPolicy } from './workloadPolicy.ts';
import { removeDeployment, roomForDeployment, withinTenantQuotas } from './deploymentQuotas.ts';

export interface ControlPlaneDeps {
  repo: ControlPlaneRepository;
  deployer: RevisionDriver;
  /** Deployment and revision transitions are logged here (transitionLog.ts). */
  log: Logger;
  /** Where this control plane deploys: what it cannot honour is refused at the API (targetRules.ts). */
  target?: DeployTargetKind;
  /** What the operator lets each tenant run (workloadPolicy.ts); its defaults when not given. */
  policy?: WorkloadPolicy;
}

/** The owner a tenant boundary check speaks for. */
export function ownerOf(deps: Pick<ControlPlaneDeps, 'policy'>, tenantId: string, deploymentId: string | null, viaListener: boolean) {
  return { deploymentId, viaListener, workload: workloadOf(deps.policy ?? DEFAULT_WORKLOAD_POLICY, tenantId) };
}

/** The target's refusals of a deployment's settings as a 422; a listener's deployments are its own target's. */
export function checkTarget(target: DeployTargetKind | undefined, viaListener: boolean, next: TargetRuleInput, current: TargetRuleInput | null) {
  const problems = target && !viaListener ? targetProblems(target, next, current) : [];
  if (problems.length === 0) return undefined;
  return fail('unprocessable', problems.map((p) => `${p.loc.join('.')}: ${p.msg}`).join(' '), { problems });
}

/** Views of unchanged records are reused (stored records are immutable, so a view is too). */
const views = new WeakMap<DeploymentRecord, { latest: RevisionRecord | undefined; view: Deployment }>();

export async function deploymentView(repo: ControlPlaneRepository, record: DeploymentRecord): Promise<Deployment> {
  return viewOf(record, record.latest_revision_id ? await repo.revisions.get(record.latest_revision_id) : undefined);
}

/** A page of deployments with their latest revisions, read at once. */
async function deploymentViews(repo: ControlPlaneRepository, records: DeploymentRecord[]): Promise<Deployment[]> {
  const withRevision = records.filter((r) => r.latest_revision_id);
  const revisions = await repo.revisions.getMany(withRevision.map((r) => r.latest_revision_id!));
  const latest = new Map(withRevision.map((r, i) => [r, revisions[i]]));
  return records.map((r) => viewOf(r, latest.get(r)));
}

function viewOf(record: DeploymentRecord, latest: RevisionRecord | undefined): Deployment {
  const cached = views.get(record);
  if (cached && cached.latest === latest) return cached.view;
  const view = deepFreeze(toDeployment(record, latest));
  views.set(record, { latest, view });
  return view;
}

/** `baseUrl` becomes the `custom_url` of sources whose URL the server assigns. */
export async function createDeployment(
  deps: ControlPlaneDeps,
  tenantId: string,
  body: DeploymentCreate,
  baseUrl: string,
): Promise<Outcome<Deployment, 'invalid' | 'unprocessable' | 'conflict' | 'quota_exceeded'>> {
  const { repo, deployer, log, target } = deps;
  const parsed = revisionInput(body.source_revision_config);
  if (!parsed.ok) return parsed;
  const input = parsed.value;
  const config = body.source_config;
  const secrets = body.secrets ?? [];
  const broken =
    checkSourceOnlyFields(body.source, config, input) ??
    checkComplete(body.source, config.repo_url ?? null, config.build_on_push ?? null, input) ??
    checkResourceSpec(config.resource_spec) ??
    checkSecretNames(secrets);
  if (broken) return broken;
  // the deployment has no Secret of its own yet: no secret reference is allowed
  const outside =
    checkTenantBoundary(config, input.image_uri, ownerOf(deps, tenantId, null, Boolean(config.listener_id))) ??
    checkTarget(target, Boolean(config.listener_id), { resource_spec: config.resource_spec, secrets }, null);
  if (outside) return outside;
  if (config.listener_id && !(await listenerOf(repo, tenantId, config.listener_id)).ok) {
    return invalid(`source_config.listener_id: Listener ID ${config.listener_id} not found.`);
  }

  const tenantName = `${tenantId}/${body.name}`;
  const { workload } = ownerOf(deps, tenantId, null, false);
  // the name, the count and the write under the tenant's one lock (a second lock inside it would
  // hold two of PostgreSQL's lock connections): creations sent at once pass one after another
  return withinTenantQuotas(repo, tenantId, async () => {
    if (await repo.deployments.nameTaken(tenantName)) {
      return conflict(`A deployment named ${body.name} already exists.`);
    }
    const room = await roomForDeployment(repo, tenantId, workload, config.resource_spec, null);
    if (!room.ok) return room;
    const now = timestamp();
    const deployment: DeploymentRecord = {
      id: randomUUID(),
      tenant_id: tenantId,
      tenant_name: tenantName,
      name: body.name,
      source: body.source,
      source_config: {
        integration_id: config.integration_id ?? null,
        repo_url: config.repo_url ?? null,
        deployment_type: config.deployment_type ?? 'dev',
        build_on_push: config.build_on_push ?? null,
        // a listener's deployer assigns the URL of what it deploys, and reports it once deployed
        custom_url: body.source === 'external_docker' ? (config.custom_url ?? null) : config.listener_id ? null : baseUrl,
        resource_spec: config.resource_spec ?? null,
        listener_id: config.listener_id ?? null,
        listener_config: config.listener_config ?? null,
        install_command: config.install_command ?? null,
        build_command: config.build_command ?? null,
      },
      secrets: secrets.map((s) => ({ name: s.name, value: s.value })),
      created_at: now,
      updated_at: now,
      status: 'AWAITING_DATABASE',
      latest_revision_id: null,
      active_revision_id: null,
      image_version: body.image_version ?? null,
    };
    const revision = firstRevision(deployment, { ...input, repo_commit_sha: null });
    const stored: DeploymentRecord = { ...deployment, latest_revision_id: revision.id };
    await repo.write([putDeployment(stored), putRevision(revision), room.value]);
    logDeploymentCreated(log, stored, revision);
    deployer.submit(revision);
    return ok(toDeployment(stored, revision));
  });
}

export async function getDeployment(repo: ControlPlaneRepository, tenantId: string, id: string): Promise<Outcome<Deployment, 'not_found'>> {
  const record = await repo.deployments.ofTenant(tenantId, id);
  if (!record) return deploymentNotFound(id);
  return ok(await deploymentView(repo, record));
}

export async function listDeployments(repo: ControlPlaneRepository, tenantId: string, query: ListDeploymentsQuery): Promise<DeploymentList> {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? 20;
  // tags are not managed here, so no deployment carries one
  if (query.tag_value_ids) return { resources: [], offset };
  let records: DeploymentRecord[];
  if (query.deployment_ids) {
    const ids = [...new Set(query.deployment_ids.toLowerCase().split(','))];
    const found = await Promise.all(ids.map((id) => repo.deployments.ofTenant(tenantId, id)));
    const filter = deploymentFilter(query);
    records = found
      .filter((r): r is DeploymentRecord => r !== undefined && (!filter || filter(r)))
      .sort((a, b) => (a.created_at < b.created_at ? 1 : -1))
      .slice(offset, offset + limit);
  } else {
    records = await repo.deployments.newestFirst(tenantId, query, { offset, limit });
  }
  const resources = await deploymentViews(repo, records);
  return { resources, offset: offset + resources.length };
}

/** Soft delete (cleanup by the deployer after one phase), or immediate removal with force. */
export async function deleteDeployment(
  { repo, deployer, log }: ControlPlaneDeps,
  tenantId: string,
  id: string,
  force: boolean,
): Promise<Outcome<void, 'not_found' | 'invalid'>> {
  return repo.locks.run(id, async () => {
    const current = await repo.deployments.ofTenant(tenantId, id);
    if (!current) return deploymentNotFound(id);
    if (force) {
      if (current.status !== 'AWAITING_DELETE') return invalid('force is only allowed for a deployment in AWAITING_DELETE; delete it without force first.');
      await removeDeployment(repo, current);
      logDeploymentDeleted(log, id, 'forced');
      return ok(undefined);
    }
    if (current.status === 'AWAITING_DELETE') return ok(undefined);
    await repo.deployments.put({ ...current, status: 'AWAITING_DELETE', updated_at: timestamp() });
    logDeploymentStatus(log, current, 'AWAITING_DELETE');
    deployer.retire(id);
    return ok(undefined);
  });
}
