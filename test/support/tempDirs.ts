// Temporary folders of a test process, removed when the process exits (src/shared/processTempDir.ts):
// whether its tests passed, failed or were cut short by the runner's grace (scripts/run-tests.ts),
// a folder made here does not outlive the process. Test servers' data directories, projects and
// copies were left behind by the thousand (43 GB of /tmp once filled a CI machine's disk).
import { processTempDir, removeAtExit } from '../../src/shared/processTempDir.ts';

/**
 * A fresh folder under the temporary folder, removed at the latest when this process exits;
 * so is `<folder>-deployments` beside it, where a server whose data directory it is keeps the
 * local deployer's workspaces (AGENTPLANE_DEPLOYMENTS_DIR's default).
 */
export function tempDir(prefix = 'agentplane-test-'): string {
  const dir = processTempDir(prefix);
  removeAtExit(`${dir}-deployments`);
  return dir;
}
