// The local deployer makes a system user per deployment (when run as root); a test that ends
// with deployments still there removes their users, so that runs do not pile them up.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** userdel for every user whose home (its workspace) is under `workspaces`. */
export function removeDeploymentUsers(workspaces: string): void {
  if (process.getuid?.() !== 0) return;
  for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , , , , home] = line.split(':');
    if (!name?.startsWith('agentplane-') || !home?.startsWith(`${workspaces}/`)) continue;
    try {
      execFileSync('userdel', [name], { stdio: 'ignore' });
    } catch {
      // removed meanwhile by the deployer's own clean-up
    }
  }
}
