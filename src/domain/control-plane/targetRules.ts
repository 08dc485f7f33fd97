// What the configured deploy target cannot honour, refused at the API (create and PATCH, a 422
// naming each field) rather than found out by a revision minutes later. Two kinds of rule:
// - where the data lives: a deployment keeps its threads, runs and store across revisions,
//   restarts and scale changes, so no change may move them silently. The container target
//   keeps one replica's data on the deployment's volume and several replicas' in the database
//   its DATABASE_URL secret names; which of the two is decided by the first revision, and a
//   scale or secret change that would switch is refused (the data is not moved for you).
//   The Kubernetes targets always give a deployment its own PostgreSQL (renderManifests.ts),
//   so their scale changes never move data.
// - what kube-local (`podman kube play` on one machine) cannot play: several replicas of a
//   workload (each would publish the same host port), volumes other than emptyDir and
//   persistentVolumeClaim (nothing provides the ConfigMap, the downward API or the projected
//   token), and Redis, which no Kubernetes target runs.
// A deployment a listener deploys is its listener's business: its target is not this one.
import type { ResourceSpec, Secret } from '../../../generated/control-plane/types.gen.ts';
import type { BoundaryProblem } from './kubernetes/tenantBoundary.ts';
import { refusedFields } from './kubernetes/renderManifests.ts';

export type DeployTargetKind = 'simulated' | 'local' | 'container' | 'kubernetes' | 'kube-local';

/** The secret that gives a container deployment's replicas their shared store. */
export const SHARED_STORE_SECRET = 'DATABASE_URL';

/** Volume sources podman kube play plays from what kube-local renders. */
const PLAYABLE_VOLUMES = new Set(['emptyDir', 'persistentVolumeClaim']);

export interface TargetRuleInput {
  resource_spec: ResourceSpec | null | undefined;
  secrets: readonly Pick<Secret, 'name'>[];
}

const specLoc = (field: string | number, ...rest: (string | number)[]) => ['source_config', 'resource_spec', field, ...rest];

/** What `next` asks of the target that it cannot do; `current` is the stored deployment on a PATCH. */
export function targetProblems(target: DeployTargetKind, next: TargetRuleInput, current: TargetRuleInput | null): BoundaryProblem[] {
  if (target === 'container') return containerProblems(next, current);
  if (target === 'kubernetes') return redisProblems(next.resource_spec);
  if (target === 'kube-local') return [...redisProblems(next.resource_spec), ...kubeLocalProblems(next.resource_spec ?? {})];
  return [];
}

const hasStoreSecret = (input: TargetRuleInput) => input.secrets.some((s) => s.name === SHARED_STORE_SECRET);

function containerProblems(next: TargetRuleInput, current: TargetRuleInput | null): BoundaryProblem[] {
  const problems: BoundaryProblem[] = [];
  const database = hasStoreSecret(next);
  if (current && hasStoreSecret(current) !== database) {
    problems.push({
      loc: ['secrets'],
      msg: database
        ? `adding the ${SHARED_STORE_SECRET} secret would move the deployment's data from its volume to that database, leaving its threads, runs and store behind; create a new deployment with ${SHARED_STORE_SECRET} instead.`
        : `removing the ${SHARED_STORE_SECRET} secret would move the deployment's data from that database to an empty volume; keep the secret (its value may change to the same database's new address or credentials).`,
    });
  }
  const replicas = next.resource_spec?.min_scale ?? 1;
  if (replicas > 1 && !database) {
    problems.push({
      loc: specLoc('min_scale'),
      msg: `min_scale ${replicas} runs ${replicas} replicas, which cannot share the one replica's volume where this deployment keeps its data; a deployment with several replicas needs a ${SHARED_STORE_SECRET} secret (a PostgreSQL URL its containers reach) from its creation on.`,
    });
  }
  return problems;
}

function redisProblems(spec: ResourceSpec | null | undefined): BoundaryProblem[] {
  return spec ? refusedFields(spec).map((r) => ({ loc: specLoc(r.field), msg: r.message })) : [];
}

function kubeLocalProblems(spec: ResourceSpec): BoundaryProblem[] {
  const problems: BoundaryProblem[] = [];
  for (const field of ['min_scale', 'queue_min_scale'] as const) {
    const replicas = spec[field] ?? 1;
    if (replicas > 1)
      problems.push({
        loc: specLoc(field),
        msg: `kube-local plays one pod per workload: ${replicas} replicas would each publish the deployment's one host port on this machine. Set ${field} to 1 (max_scale's autoscaler is played at its minimum), or deploy to a cluster (AGENTPLANE_DEPLOYER=kubernetes).`,
      });
  }
  for (const [index, volume] of (spec.volumes ?? []).entries()) {
    const source = Object.keys(volume).find((key) => key !== 'name');
    if (source && !PLAYABLE_VOLUMES.has(source))
      problems.push({
        loc: specLoc('volumes', index, source),
        msg: `kube-local cannot play a ${source} volume: podman kube play mounts emptyDir and persistentVolumeClaim volumes only (the deployment's secrets reach it as environment variables).`,
      });
  }
  return problems;
}
