// agentplane render: a deployment's Kubernetes manifests without a control plane — the same
// renderer and schema check as the kubernetes deployer — as YAML for `kubectl apply -f -`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { ResourceSpec } from '../../generated/control-plane/types.gen.ts';
import { manifestsAsYaml } from '../domain/control-plane/kubernetes/manifestYaml.ts';
import { renderManifests } from '../domain/control-plane/kubernetes/renderManifests.ts';
import { validateManifests } from '../domain/control-plane/kubernetes/validateManifests.ts';
import { checkResourceSpec } from '../domain/control-plane/sourceRules.ts';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, workloadOf } from '../domain/control-plane/workloadPolicy.ts';
import { createDeployment_body } from '../../generated/control-plane/body.validators.gen.js';

/**
 * What the API would refuse of this resource_spec: the same schema (a create request's body)
 * and the same rules (sourceRules.ts; the tenant boundary is the renderer's own check).
 */
function refusedByTheApi(spec: ResourceSpec, image: string): string[] {
  const body = { name: 'render', source: 'external_docker', source_config: { resource_spec: spec }, source_revision_config: { image_uri: image } };
  if (!createDeployment_body(body)) {
    // the "or null" branches of resource_spec itself say nothing more
    const issues = (createDeployment_body.errors ?? []).filter(
      (e) => !(e.instancePath === '/source_config/resource_spec' && ['anyOf', 'type'].includes(e.keyword)),
    );
    return issues.map(
      (e) =>
        `${e.instancePath.replace(/^\//, '').replaceAll('/', '.')}: ${e.message ?? e.keyword}${e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`,
    );
  }
  const broken = checkResourceSpec(spec);
  return broken ? [broken.failure.detail] : [];
}

export interface RenderOptions {
  image: string;
  resourceSpec?: string;
  namespace: string;
  id: string;
  secret: string[];
  postgresImage: string;
}

/** Writes the manifests to stdout; 0, or 1 with every problem on stderr. */
export function renderCommand(options: RenderOptions): number {
  let spec: ResourceSpec = {};
  if (options.resourceSpec) {
    try {
      spec = JSON.parse(fs.readFileSync(options.resourceSpec, 'utf8')) as ResourceSpec;
    } catch (err) {
      console.error(`error: --resource-spec ${options.resourceSpec}: ${(err as Error).message}`);
      return 1;
    }
  }
  const refused = refusedByTheApi(spec, options.image);
  for (const problem of refused) console.error(`error: ${problem}`);
  if (refused.length > 0) return 1;
  const secrets = [];
  for (const pair of options.secret) {
    const at = pair.indexOf('=');
    if (at < 1) {
      console.error(`error: --secret takes NAME=VALUE, got "${pair}"`);
      return 1;
    }
    secrets.push({ name: pair.slice(0, at), value: pair.slice(at + 1) });
  }
  const rendered = renderManifests({
    deployment: {
      id: options.id,
      name: options.id,
      secrets,
      source_config: { resource_spec: spec, listener_config: { k8s_namespace: options.namespace } } as never,
    },
    revision: { id: 'render', source_revision_config: { image_uri: options.image } as never },
    defaultNamespace: options.namespace,
    postgresImage: options.postgresImage,
    databasePassword: crypto.randomBytes(24).toString('hex'),
    // the operator's own render: the rules every tenant has by default
    workload: workloadOf(DEFAULT_WORKLOAD_POLICY, EVERY_TENANT),
  });
  if (!rendered.ok) {
    for (const refused of rendered.refused) console.error(`error: ${refused.message}`);
    return 1;
  }
  const problems = validateManifests(rendered.manifests);
  for (const problem of problems) console.error(`error: ${problem.object}: ${problem.message}`);
  if (problems.length > 0) return 1;
  process.stdout.write(manifestsAsYaml(rendered.manifests));
  return 0;
}
