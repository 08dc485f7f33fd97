// The rules a deployment's configuration must follow beyond the schema; each check answers
// the first rule broken (an `invalid` failure naming it), or undefined. Create checks a whole configuration; PATCH checks what it was sent plus the merged
// result, because the stored part already passed these rules.
import type { ResourceSpec, Secret, Source, SourceConfigCreate, SourceRevisionConfigInput } from '../../../generated/control-plane/types.gen.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { invalid, type Broken } from './failures.ts';
import { tenantBoundaryProblems, type BoundaryProblem } from './kubernetes/tenantBoundary.ts';
import { admitImage, type TenantWorkload } from './workloadPolicy.ts';
import { repoUrlProblem } from './repoUrl.ts';

const GITHUB_ONLY_CONFIG = ['repo_url', 'integration_id'] as const;
const EXTERNAL_DOCKER_ONLY_CONFIG = ['custom_url'] as const;
// upstream: external_docker only; a listener with the local deployer builds git checkouts too
const LISTENER_CONFIG = ['listener_id', 'listener_config'] as const;
const LISTENER_SOURCES: readonly Source[] = ['external_docker', 'github'];
const IMAGE_SOURCES: readonly Source[] = ['external_docker', 'internal_docker'];

/** The revision settings a client sent, with `langgraph_config_path` folded into its new name. */
export interface RevisionInput {
  repo_ref: string | null;
  graph_config_path: string | null;
  image_uri: string | null;
}

export function revisionInput(input: SourceRevisionConfigInput | null | undefined): Outcome<RevisionInput, 'invalid'> {
  const path = input?.graph_config_path ?? null;
  const alias = input?.langgraph_config_path ?? null;
  if (path !== null && alias !== null && path !== alias) {
    return fail('invalid', 'source_revision_config.graph_config_path and source_revision_config.langgraph_config_path differ; send one of them.');
  }
  return ok({ repo_ref: input?.repo_ref ?? null, graph_config_path: path ?? alias, image_uri: input?.image_uri ?? null });
}

/** Fields a client may only set for some sources (null always passes). */
export function checkSourceOnlyFields(source: Source, config: SourceConfigCreate | null | undefined, revision: RevisionInput): Broken | undefined {
  if (source !== 'github') {
    for (const field of GITHUB_ONLY_CONFIG) {
      if (config?.[field] != null) return invalid(`source_config.${field} is only allowed when source is github.`);
    }
    // false is harmless and some clients send every key; only turning it on is refused
    if (config?.build_on_push === true) return invalid('source_config.build_on_push is only allowed when source is github.');
    if (revision.repo_ref !== null) return invalid('source_revision_config.repo_ref is only allowed when source is github.');
    if (revision.graph_config_path !== null) return invalid('source_revision_config.graph_config_path is only allowed when source is github.');
  }
  if (source !== 'external_docker') {
    for (const field of EXTERNAL_DOCKER_ONLY_CONFIG) {
      if (config?.[field] != null) return invalid(`source_config.${field} is only allowed when source is external_docker.`);
    }
  }
  if (!LISTENER_SOURCES.includes(source)) {
    for (const field of LISTENER_CONFIG) {
      if (config?.[field] != null) return invalid(`source_config.${field} is only allowed when source is external_docker or github.`);
    }
  }
  if (!IMAGE_SOURCES.includes(source) && revision.image_uri !== null) {
    return invalid('source_revision_config.image_uri is only allowed when source is external_docker or internal_docker.');
  }
}

/** Rules on the complete (created or merged) configuration. */
export function checkComplete(source: Source, repoUrl: string | null, buildOnPush: boolean | null, revision: RevisionInput): Broken | undefined {
  if (source === 'github') {
    if (repoUrl === null) return invalid('source_config.repo_url is required when source is github.');
    if (revision.repo_ref === null) return invalid('source_revision_config.repo_ref is required when source is github.');
    if (revision.graph_config_path === null)
      return invalid('source_revision_config.graph_config_path (or langgraph_config_path) is required when source is github.');
    if (buildOnPush === true && revision.repo_ref.startsWith('refs/tags/')) {
      return invalid('source_config.build_on_push must be false when source_revision_config.repo_ref is a tag (refs/tags/...).');
    }
  } else if (revision.image_uri === null) {
    return invalid(`source_revision_config.image_uri is required when source is ${source}.`);
  }
}

export function checkSecretNames(secrets: readonly Secret[]): Broken | undefined {
  const seen = new Set<string>();
  for (const { name } of secrets) {
    if (seen.has(name)) return invalid(`secrets: duplicate secret name ${name}.`);
    seen.add(name);
  }
}

type Numeric = { [K in keyof ResourceSpec]-?: ResourceSpec[K] extends number | null | undefined ? K : never }[keyof ResourceSpec];
const SCALE_PAIRS: [Numeric, Numeric][] = [
  ['min_scale', 'max_scale'],
  ['queue_min_scale', 'queue_max_scale'],
  ['orchestrator_min_scale', 'orchestrator_max_scale'],
];
const LIMIT_PAIRS: [Numeric, Numeric][] = [
  ['cpu', 'cpu_limit'],
  ['memory_mb', 'memory_limit_mb'],
  ['queue_cpu', 'queue_cpu_limit'],
  ['queue_memory_mb', 'queue_memory_limit_mb'],
  ['orchestrator_cpu', 'orchestrator_cpu_limit'],
  ['orchestrator_memory_mb', 'orchestrator_memory_limit_mb'],
  ['executor_cpu', 'executor_cpu_limit'],
  ['executor_memory_mb', 'executor_memory_limit_mb'],
  ['redis_cpu', 'redis_cpu_limit'],
  ['redis_memory_mb', 'redis_memory_limit_mb'],
  ['db_cpu', 'db_cpu_limit'],
  ['db_memory_mb', 'db_memory_limit_mb'],
];

export function checkResourceSpec(spec: ResourceSpec | null | undefined): Broken | undefined {
  if (!spec) return undefined;
  for (const [low, high] of [...SCALE_PAIRS, ...LIMIT_PAIRS]) {
    const a = spec[low];
    const b = spec[high];
    if (a != null && b != null && a > b) return invalid(`source_config.resource_spec.${low} must be less than or equal to ${high}.`);
  }
}

/** A URL a dashboard may render as a link and a client may call: http or https only (never javascript:, data:, file:…). */
export function customUrlProblem(url: string | null | undefined): BoundaryProblem | null {
  if (url == null) return null;
  let protocol = '';
  try {
    protocol = new URL(url).protocol;
  } catch {
    // not a URL at all: refused below
  }
  return protocol === 'http:' || protocol === 'https:' ? null : { loc: ['source_config', 'custom_url'], msg: 'custom_url must be an http or https URL.' };
}

/** The image a revision would run, if it breaks the image rules of the tenant (workloadPolicy.ts). */
export function imageUriProblem(imageUri: string | null | undefined, deploymentId: string | null, workload: TenantWorkload): BoundaryProblem | null {
  if (imageUri == null) return null;
  const admitted = admitImage(imageUri, deploymentId, workload);
  return admitted.ok ? null : { loc: ['source_revision_config', 'image_uri'], msg: admitted.msg };
}

/**
 * The rules of the tenant boundary (kubernetes/tenantBoundary.ts: the resource_spec allowlist),
 * of the image it runs and of custom_url: an `unprocessable` failure listing each field and the
 * rule it breaks, or undefined. `deploymentId` is null at create (the deployment owns nothing yet).
 */
export function checkTenantBoundary(
  config: {
    resource_spec?: ResourceSpec | null;
    listener_config?: { k8s_namespace?: string | null } | null;
    custom_url?: string | null;
    repo_url?: string | null;
  },
  imageUri: string | null,
  owner: { deploymentId: string | null; viaListener: boolean; workload: TenantWorkload },
) {
  const url = customUrlProblem(config.custom_url);
  const image = imageUriProblem(imageUri, owner.deploymentId, owner.workload);
  const repo = repoUrlProblem(config.repo_url);
  const problems = [
    ...(url ? [url] : []),
    ...(repo ? [{ loc: ['source_config', 'repo_url'], msg: repo }] : []),
    ...(image ? [image] : []),
    ...tenantBoundaryProblems(config.resource_spec, config.listener_config, owner.deploymentId, owner.viaListener, owner.workload),
  ];
  if (problems.length === 0) return undefined;
  return fail('unprocessable', problems.map((p) => `${p.loc.join('.')}: ${p.msg}`).join(' '), { problems });
}
