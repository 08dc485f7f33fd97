// What the targets that run deployments on this machine (local, container) share: where the
// control plane keeps each deployment's logs and files (inside its data directory), how a
// revision's log is read back (secrets masked), and the facts of a deployment they run with.
import path from 'node:path';
import type { RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { ControlPlaneRepository, DeploymentRecord, RevisionRecord } from '../../../domain/control-plane/records.ts';
import { redactor, secretValues, type Redact } from '../../../domain/control-plane/redaction.ts';
import type { LogKind } from '../../../domain/control-plane/deployTarget.ts';
import type { LogRequest } from '../../../domain/control-plane/deployer/revisionLogs.ts';
import { readLogPage } from '../../log-files/revisionLogFiles.ts';

export const secretsOf = (deployment: DeploymentRecord): Record<string, string> => Object.fromEntries(deployment.secrets.map((s) => [s.name, s.value]));

export const redactorOf = (deployment: DeploymentRecord): Redact => redactor(secretValues(deployment));

/** A redeploy runs what the revision it redeploys built (following redeploys of redeploys). */
export async function builtRevision(repo: ControlPlaneRepository, revision: RevisionRecord): Promise<RevisionRecord> {
  let current = revision;
  for (let hops = 0; current.redeploy_of && hops < 1000; hops += 1) {
    const original = await repo.revisions.get(current.redeploy_of);
    if (!original) break;
    current = original;
  }
  return current;
}

export class DeploymentFiles {
  constructor(
    private readonly repo: ControlPlaneRepository,
    /** Where the control plane keeps each deployment's logs and files (inside its data directory). */
    private readonly root: string,
  ) {}

  /** What only the control plane reads of a deployment: its logs and the target's files. */
  dir(deploymentId: string): string {
    return path.join(this.root, deploymentId);
  }

  logFile(deploymentId: string, revisionId: string, kind: LogKind): string {
    return path.join(this.dir(deploymentId), 'logs', `${revisionId}.${kind === 'build' ? 'build' : 'server'}.log`);
  }

  /** A page of the revision's build log (the target's) or server log (what its agent server wrote), secrets masked. */
  async readLogs(revision: RevisionRecord, deployment: DeploymentRecord | undefined, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    const complete = async () => {
      if (kind === 'deploy') return false;
      const now = await this.repo.revisions.get(revision.id);
      return !now || !['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING'].includes(now.status);
    };
    return readLogPage(this.logFile(revision.deployment_id, revision.id, kind), request, complete, deployment ? redactorOf(deployment) : undefined);
  }
}
