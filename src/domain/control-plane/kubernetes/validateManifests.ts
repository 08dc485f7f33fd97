// Rendered manifests checked against the Kubernetes OpenAPI schemas (kubernetes-models), so
// a bad pass-through value of `resource_spec` (a volume source, an init container's
// resources) is refused here, naming the object and the field, rather than by a cluster halfway
// through an apply.
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { Manifest } from './renderManifests.ts';

interface Validatable {
  validate(): void;
}

const MODELS: Record<string, new (data: never) => Validatable> = {
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

/** One problem: which object, and what the schema said. */
export interface ManifestProblem {
  object: string;
  message: string;
}

export function validateManifests(manifests: Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const manifest of manifests) {
    const object = `${manifest.kind}/${manifest.metadata.name}`;
    const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
    if (!Model) {
      problems.push({ object, message: `no schema for ${manifest.apiVersion} ${manifest.kind}` });
      continue;
    }
    try {
      new Model(manifest as never).validate();
    } catch (err) {
      // the validator's paths start at `data`: the object itself
      problems.push({ object, message: (err as Error).message.replaceAll('data/', '') });
    }
  }
  return problems;
}
