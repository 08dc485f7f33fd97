// PATCH /v2/deployments/{id}: in-place settings change the deployment; revision settings,
// secrets and resource_spec create a new revision. Omitted and null fields are unchanged
// (nulls merge rather than clear, as upstream).
import type { Deployment, DeploymentPatch, Secret, SourceConfigPatch } from '../../../generated/control-plane/types.gen.ts';
import { timestamp } from './clock.ts';
import type { ControlPlaneDeps } from './deployments.ts';
import { deploymentView } from './deployments.ts';
import { deploymentNotFound, invalid } from './errors.ts';
import { supersedingRevision } from './newRevision.ts';
import { putDeployment, type DeploymentRecord } from './records.ts';
import { checkComplete, checkResourceSpec, checkSecretNames, checkSourceOnlyFields, revisionInput } from './sourceRules.ts';
import { SECRET_MASK, toDeployment } from './views.ts';

const IMMUTABLE_CONFIG = ['integration_id', 'repo_url', 'deployment_type', 'listener_id', 'listener_config'] as const;
const IN_PLACE_CONFIG = ['build_on_push', 'custom_url', 'install_command', 'build_command', 'resource_spec'] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export async function patchDeployment({ repo, deployer }: ControlPlaneDeps, tenantId: string, id: string, body: DeploymentPatch): Promise<Deployment> {
  return repo.locks.run(id, async () => {
    const current = await repo.deploymentOf(tenantId, id);
    if (!current) throw deploymentNotFound(id);
    if (current.status === 'AWAITING_DELETE') throw invalid(`Deployment ID ${id} is being deleted and cannot be updated.`);
    if (body.name !== undefined && body.name !== current.name) throw invalid('name cannot be changed after creation.');
    if (body.source !== undefined && body.source !== current.source) throw invalid('source cannot be changed after creation.');

    const config = body.source_config ?? {};
    for (const field of IMMUTABLE_CONFIG) {
      if (config[field] != null && !same(config[field], current.source_config[field])) {
        throw invalid(`source_config.${field} cannot be changed after creation.`);
      }
    }
    const input = revisionInput(body.source_revision_config);
    // a value sent back unchanged (e.g. the server-assigned custom_url) is not a change
    checkSourceOnlyFields(current.source, changedFields(config, current), input);
    checkResourceSpec(config.resource_spec);
    const secrets = body.secrets == null ? null : keepMaskedValues(body.secrets, current.secrets);

    const latest = current.latest_revision_id ? await repo.revisions.get(current.latest_revision_id) : undefined;
    const base = latest?.source_revision_config;
    const merged = {
      repo_ref: input.repo_ref ?? base?.repo_ref ?? null,
      graph_config_path: input.graph_config_path ?? base?.graph_config_path ?? null,
      image_uri: input.image_uri ?? base?.image_uri ?? null,
    };
    const sourceConfig = { ...current.source_config };
    for (const field of IN_PLACE_CONFIG) if (config[field] != null) Object.assign(sourceConfig, { [field]: config[field] });
    checkComplete(current.source, sourceConfig.repo_url, sourceConfig.build_on_push, merged);

    const changed: DeploymentRecord = { ...current, source_config: sourceConfig, secrets: secrets ?? current.secrets };
    const needsRevision = input.repo_ref !== null || input.graph_config_path !== null || input.image_uri !== null || secrets !== null || config.resource_spec != null;
    if (!needsRevision) {
      if (same(changed.source_config, current.source_config)) return deploymentView(repo, current);
      const stored = { ...changed, updated_at: timestamp() };
      await repo.store.write([putDeployment(stored)]);
      return toDeployment(stored, latest);
    }
    const siblings = await repo.revisionsOf(id);
    const plan = supersedingRevision(changed, siblings, { ...merged, repo_commit_sha: null }, null, timestamp());
    await repo.store.write(plan.ops);
    deployer.submit(plan.revision);
    return toDeployment(plan.deployment, plan.revision);
  });
}

function changedFields(config: SourceConfigPatch, current: DeploymentRecord): SourceConfigPatch {
  const entries = Object.entries(config).filter(([field, value]) => !same(value, current.source_config[field as keyof SourceConfigPatch]));
  return Object.fromEntries(entries) as SourceConfigPatch;
}

/** The mask sent back for a name keeps that secret's stored value. */
function keepMaskedValues(incoming: readonly Secret[], stored: readonly Secret[]): Secret[] {
  checkSecretNames(incoming);
  const storedByName = new Map(stored.map((s) => [s.name, s.value]));
  return incoming.map(({ name, value }) => {
    if (value !== SECRET_MASK) return { name, value };
    const kept = storedByName.get(name);
    if (kept === undefined) throw invalid(`secrets: ${name} has the masked value ${SECRET_MASK} but no stored value to keep; send the real value.`);
    return { name, value: kept };
  });
}
