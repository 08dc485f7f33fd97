// Manifests as YAML documents that read back the same in every reader a cluster engineer
// uses: YAML 1.2 (this library's default) and YAML 1.1 (kubectl, podman and other go-yaml
// readers), where a plain `off`, `yes`, `y`, `0755` or `12:30` is a boolean or a number. The
// library's `compat` option quotes every string that either schema would read as something else.
import YAML from 'yaml';
import type { Manifest } from './renderManifests.ts';

export function manifestsAsYaml(manifests: Manifest[]): string {
  return manifests.map((m) => YAML.stringify(m, { compat: 'yaml-1.1' })).join('---\n');
}
