// PATCH /v2/deployments/{id}: in-place settings change the deployment; revision settings,
// secrets and resource_spec create a new revision. Omitted and null fields are unchanged
// (nulls merge rather than clear, as upstream).
import type { Deployment, DeploymentPatch, Secret, SourceConfigPatch } from '../../../generated/control-plane/types.gen.ts';
import { timestamp } from '../clock.ts';
import type { ControlPlaneDeps } from './deployments.ts';
import { checkTarget, deploymentView, ownerOf } from './deployments.ts';
import { ok, type Outcome } from '../outcome.ts';
import { deploymentNotFound, invalid, type Broken } from './failures.ts';
import { supersedingRevision } from './newRevision.ts';
import { logRevisionCreated } from './transitionLog.ts';
import { putDeployment, type DeploymentRecord, type RecordWrite } from './records.ts';
import { checkComplete, checkResourceSpec, checkSecretNames, checkSourceOnlyFields, checkTenantBoundary, revisionInput } from './sourceRules.ts';
import { SECRET_MASK, toDeployment } from './views.ts';
import { sameRepoUrl } from './repoUrl.ts';
import { replicasAskedBy, roomForDeployment, roomForRevision, withinTenantQuotas } from './deploymentQuotas.ts';

const IMMUTABLE_CONFIG = ['integration_id', 'repo_url', 'deployment_type', 'listener_id', 'listener_config'] as const;
const IN_PLACE_CONFIG = ['build_on_push', 'custom_url', 'install_command', 'build_command', 'resource_spec'] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export async function patchDeployment(
  deps: ControlPlaneDeps,
  tenantId: string,
  id: string,
  body: DeploymentPatch,
): Promise<Outcome<Deployment, 'not_found' | 'invalid' | 'unprocessable' | 'quota_exceeded'>> {
  const { repo, deployer, log, target } = deps;
  return repo.locks.run(id, async () => {
    const current = await repo.deployments.ofTenant(tenantId, id);
    if (!current) return deploymentNotFound(id);
    if (current.status === 'AWAITING_DELETE') return invalid(`Deployment ID ${id} is being deleted and cannot be updated.`);
    if (body.name !== undefined && body.name !== current.name) return invalid('name cannot be changed after creation.');
    if (body.source !== undefined && body.source !== current.source) return invalid('source cannot be changed after creation.');

    const config = body.source_config ?? {};
    for (const field of IMMUTABLE_CONFIG) {
      if (config[field] != null && !sameConfigValue(field, config[field], current.source_config[field])) {
        return invalid(`source_config.${field} cannot be changed after creation.`);
      }
    }
    const parsed = revisionInput(body.source_revision_config);
    if (!parsed.ok) return parsed;
    const input = parsed.value;
    // a value sent back unchanged (e.g. the server-assigned custom_url) is not a change
    const broken = checkSourceOnlyFields(current.source, changedFields(config, current), input) ?? checkResourceSpec(config.resource_spec);
    if (broken) return broken;
    const latest = current.latest_revision_id ? await repo.revisions.get(current.latest_revision_id) : undefined;
    const base = latest?.source_revision_config;
    // the spec and image the new revision runs: those sent, else the stored ones (stored before a rule existed, they are refused too)
    const resourceSpec = config.resource_spec ?? current.source_config.resource_spec;
    const owner = ownerOf(deps, tenantId, id, Boolean(current.source_config.listener_id));
    const outside = checkTenantBoundary({ resource_spec: resourceSpec, custom_url: config.custom_url }, input.image_uri ?? base?.image_uri ?? null, owner);
    if (outside) return outside;
    const kept = body.secrets == null ? null : keepMaskedValues(body.secrets, current.secrets);
    if (kept && !kept.ok) return kept;
    const secrets = kept && kept.value;

    const merged = {
      repo_ref: input.repo_ref ?? base?.repo_ref ?? null,
      graph_config_path: input.graph_config_path ?? base?.graph_config_path ?? null,
      image_uri: input.image_uri ?? base?.image_uri ?? null,
    };
    const sourceConfig = { ...current.source_config };
    for (const field of IN_PLACE_CONFIG) if (config[field] != null) Object.assign(sourceConfig, { [field]: config[field] });
    const incomplete = checkComplete(current.source, sourceConfig.repo_url, sourceConfig.build_on_push, merged);
    if (incomplete) return incomplete;

    const changed: DeploymentRecord = { ...current, source_config: sourceConfig, secrets: secrets ?? current.secrets };
    const settings = (d: DeploymentRecord) => ({ resource_spec: d.source_config.resource_spec, secrets: d.secrets });
    const refused = checkTarget(target, Boolean(current.source_config.listener_id), settings(changed), settings(current));
    if (refused) return refused;
    const needsRevision =
      input.repo_ref !== null || input.graph_config_path !== null || input.image_uri !== null || secrets !== null || config.resource_spec != null;
    if (!needsRevision) {
      if (same(changed.source_config, current.source_config)) return ok(await deploymentView(repo, current));
      const stored = { ...changed, updated_at: timestamp() };
      await repo.write([putDeployment(stored)]);
      return ok(toDeployment(stored, latest));
    }
    // a new scale is held to the tenant's replicas together, counted and written with its totals under its quota lock
    const rescaled = config.resource_spec != null && replicasAskedBy(config.resource_spec) !== replicasAskedBy(current.source_config.resource_spec);
    const write = async () => {
      const totals: RecordWrite[] = [];
      if (rescaled) {
        const room = await roomForDeployment(repo, tenantId, owner.workload, config.resource_spec, current);
        if (!room.ok) return room;
        totals.push(room.value);
      }
      const siblings = await repo.revisions.ofDeployment(id);
      const roomForOneMore = roomForRevision(owner.workload, siblings);
      if (!roomForOneMore.ok) return roomForOneMore;
      const plan = supersedingRevision(changed, siblings, { ...merged, repo_commit_sha: null }, null, timestamp());
      await repo.write([...plan.ops, ...totals]);
      logRevisionCreated(log, plan.revision, plan.skipped);
      deployer.submit(plan.revision);
      return ok(toDeployment(plan.deployment, plan.revision));
    };
    return rescaled ? withinTenantQuotas(repo, tenantId, write) : write();
  });
}

/** repo_url is shown masked: sent back as shown, it is the stored one. */
function sameConfigValue(field: (typeof IMMUTABLE_CONFIG)[number], sent: unknown, stored: unknown): boolean {
  return field === 'repo_url' ? sameRepoUrl(sent as string, stored as string | null) : same(sent, stored);
}

function changedFields(config: SourceConfigPatch, current: DeploymentRecord): SourceConfigPatch {
  const entries = Object.entries(config).filter(([field, value]) => !same(value, current.source_config[field as keyof SourceConfigPatch]));
  return Object.fromEntries(entries) as SourceConfigPatch;
}

/** The mask sent back for a name keeps that secret's stored value. */
function keepMaskedValues(incoming: readonly Secret[], stored: readonly Secret[]): Outcome<Secret[], 'invalid'> {
  const broken: Broken | undefined = checkSecretNames(incoming);
  if (broken) return broken;
  const storedByName = new Map(stored.map((s) => [s.name, s.value]));
  const secrets: Secret[] = [];
  for (const { name, value } of incoming) {
    const kept = value === SECRET_MASK ? storedByName.get(name) : value;
    if (kept === undefined) return invalid(`secrets: ${name} has the masked value ${SECRET_MASK} but no stored value to keep; send the real value.`);
    secrets.push({ name, value: kept });
  }
  return ok(secrets);
}
