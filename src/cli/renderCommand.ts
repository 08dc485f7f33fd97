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
import { deployedServerAuthEnv } from '../domain/control-plane/deployer/deployedServerAuth.ts';
import { uuid5 } from '../domain/agent/ids.ts';
import { isUuid } from '../shared/uuid.ts';
import { keyDigest } from '../runtime/security/auth.ts';

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
  /** SHA-256 (hex) of each key the server answers; none: a key made here, shown once. */
  keyDigest: string[];
  /** The tenant those keys act for on the server; by default one named after `id`. */
  tenant?: string;
}

/** The tenant of a render's keys when none is named: the same on every render of one id, so a re-apply keeps the server's data its own. */
const RENDER_TENANT_NAMESPACE = '2b7e1a52-6c1e-4f0e-9f38-5d8a41c7e0b3';

/**
 * The server's auth as the Kubernetes deployers give it (deployedServerAuth.ts): on, answering
 * the keys of `keyDigest` only. A render with none makes a key and says it on stderr, once:
 * it is kept nowhere, and only its digest is in the manifests.
 */
function serverAuthOf(options: RenderOptions): Record<string, string> | string[] {
  const tenant = options.tenant ?? uuid5(`agentplane-render:${options.id}`, RENDER_TENANT_NAMESPACE);
  if (!isUuid(tenant)) return [`--tenant must be a UUID, got "${tenant}"`];
  const wrong = options.keyDigest.filter((d) => !/^[0-9a-f]{64}$/i.test(d));
  if (wrong.length > 0) return wrong.map((d) => `--key-digest takes the SHA-256 of a key in hex (64 characters), got "${d.slice(0, 12)}…"`);
  let digests = options.keyDigest.map((d) => d.toLowerCase());
  if (digests.length === 0) {
    const key = `ap_${crypto.randomBytes(24).toString('base64url')}`;
    digests = [keyDigest(key)];
    console.error(
      `the rendered server answers this API key only (X-Api-Key), shown once and kept nowhere: ${key}\n` +
        `render with --key-digest ${digests[0]} to keep it, or with the digests of your own keys (printf %s "$KEY" | sha256sum)`,
    );
  }
  return deployedServerAuthEnv(tenant, () => digests);
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
  const serverAuth = serverAuthOf(options);
  if (Array.isArray(serverAuth)) {
    for (const problem of serverAuth) console.error(`error: ${problem}`);
    return 1;
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
    serverAuth,
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
