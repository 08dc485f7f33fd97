// The images a test run builds under tags of its own (test/containers/support.ts testTag) name
// the run, so that what a run left is told apart from what other runs on the machine are
// building now: the runner lists and removes them after its walk (scripts/run-tests.ts).
import { execFileSync } from 'node:child_process';

/** The start of every tag of run `run`'s own images. */
export const runImagePrefix = (run: string) => `localhost/agentplane-test-run${run.replace(/[^a-z0-9]/gi, '').toLowerCase()}-`;

/** The run's images left in podman's storage, each removed; [] when there is no podman. */
export function removeRunImages(run: string, containersConf: string): string[] {
  const podman = (args: string[]) =>
    execFileSync('podman', args, { encoding: 'utf8', env: { ...process.env, CONTAINERS_CONF: containersConf }, stdio: ['ignore', 'pipe', 'pipe'] });
  let left: string[];
  try {
    left = podman(['images', '--format', '{{.Repository}}:{{.Tag}}', '--filter', `reference=${runImagePrefix(run)}*`])
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
  for (const tag of left) {
    try {
      podman(['rmi', '--force', tag]);
    } catch {
      // removed meanwhile
    }
  }
  return left;
}
