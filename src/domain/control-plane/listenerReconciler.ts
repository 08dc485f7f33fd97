// One pass of a listener: the control plane's desired state (its heartbeat answer) is
// copied into the listener's own store — the mirror its deployer reads and writes, as the
// control plane's deployer does its own — and what the deployer made of it is reported back.
// The control plane decides what should run (new revisions, skipped ones, deletions); the
// mirror says what does run (statuses, URLs, logs). Reports are the differences between
// the two, so a listener that restarts, or comes back after a lost connection, puts right
// whatever the control plane believes (UNKNOWN included) in its first pass.
import type { AssignedRevision, ListenerAssignment, RevisionLogLine, RevisionStatusReport } from '../../../generated/control-plane/types.gen.ts';
import type { RevisionDriver, LogKind } from './deployer/types.ts';
import { IN_PROGRESS, NOT_STARTED, isFinished } from './revisionStateMachine.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type RevisionRecord } from './records.ts';
import { timestamp } from '../clock.ts';
import type { Logger } from '../ports/logger.ts';
import { ReportRefused, type ListenerReports } from '../ports/listenerReports.ts';

/** Most log lines sent in one call (the spec's limit). */
const LOG_BATCH = 1000;
/** Most bytes sent in one call: well under the control plane's body limit (1 MiB by default). */
const LOG_BATCH_BYTES = 256 * 1024;
/** A longer line is cut: alone it could pass the body limit, and no batch would ever carry it. */
const LOG_LINE_BYTES = 16 * 1024;

export class Reconciler {
  /** Per revision and log kind: the next line of the mirror's log to send. */
  private readonly logCursors = new Map<string, number>();
  /** Build logs sent to their end. */
  private readonly logsComplete = new Set<string>();

  constructor(
    private readonly mirror: ControlPlaneRepository,
    private readonly deployer: RevisionDriver,
    private readonly client: ListenerReports,
    private readonly log: Logger,
  ) {}

  async pass(assignments: ListenerAssignment[]): Promise<void> {
    const assigned = new Set(assignments.map((a) => a.deployment_id));
    for (const assignment of assignments) {
      try {
        await this.reconcile(assignment);
      } catch (err) {
        // one deployment's trouble (a report refused, a full disk) must not hold up the others
        this.log.error('listener could not reconcile a deployment; trying again at the next pass', { deployment_id: assignment.deployment_id, err });
      }
    }
    // deleted for good on the control plane (forced): taken down here too
    for (const mine of await this.mirror.deployments.all()) {
      if (!assigned.has(mine.id) && mine.status !== 'AWAITING_DELETE') await this.retire(mine);
    }
  }

  private async reconcile(assignment: ListenerAssignment): Promise<void> {
    const id = assignment.deployment_id;
    const mine = await this.mirror.deployments.get(id);
    if (assignment.status === 'AWAITING_DELETE') {
      if (!mine) await this.client.reportRemoved(id);
      else if (mine.status !== 'AWAITING_DELETE') await this.retire(mine);
      return;
    }
    // under the deployment's lock: the deployer writes its status meanwhile
    const deployment = await this.mirror.locks.run(id, async () => {
      const current = await this.mirror.deployments.get(id);
      const next = mirrored(assignment, current);
      if (next !== current) await this.mirror.write([putDeployment(next)]);
      return next;
    });
    for (const revision of assignment.revisions) await this.take(deployment, revision);
    await this.report(assignment);
    await this.sendLogs(assignment);
  }

  /** A revision new to the mirror is driven by the deployer; one skipped before it started stops. */
  private async take(deployment: DeploymentRecord, wanted: AssignedRevision): Promise<void> {
    const mine = await this.mirror.revisions.get(wanted.id);
    if (mine) {
      if (wanted.status === 'SKIPPED' && NOT_STARTED.has(mine.status)) {
        await this.mirror.locks.run(deployment.id, () => this.mirror.revisions.put({ ...mine, status: 'SKIPPED', updated_at: timestamp() }));
      }
      return;
    }
    // what the control plane has not seen run here yet (UNKNOWN included) starts from the beginning
    const fresh = wanted.status === 'UNKNOWN' || NOT_STARTED.has(wanted.status) || IN_PROGRESS.has(wanted.status);
    const revision: RevisionRecord = {
      id: wanted.id,
      deployment_id: deployment.id,
      tenant_id: deployment.tenant_id,
      created_at: wanted.created_at,
      updated_at: timestamp(),
      status: fresh ? 'CREATING' : wanted.status,
      status_message: fresh ? null : wanted.status_message,
      source: deployment.source,
      source_revision_config: {
        repo_ref: wanted.source_revision_config.repo_ref ?? null,
        graph_config_path: wanted.source_revision_config.graph_config_path ?? null,
        image_uri: wanted.source_revision_config.image_uri ?? null,
        repo_commit_sha: fresh ? null : (wanted.source_revision_config.repo_commit_sha ?? null),
      },
      redeploy_of: wanted.redeploy_of,
    };
    await this.mirror.write([putRevision(revision)]);
    if (fresh) this.deployer.submit(revision);
  }

  private async retire(mine: DeploymentRecord): Promise<void> {
    await this.mirror.locks.run(mine.id, async () => {
      const current = await this.mirror.deployments.get(mine.id);
      if (current) await this.mirror.write([putDeployment({ ...current, status: 'AWAITING_DELETE', updated_at: timestamp() })]);
    });
    this.deployer.retire(mine.id);
  }

  /** Every revision whose status here differs from what the control plane shows is reported. */
  private async report(assignment: ListenerAssignment): Promise<void> {
    const deployment = await this.mirror.deployments.get(assignment.deployment_id);
    if (!deployment) return;
    for (const theirs of assignment.revisions) {
      const mine = await this.mirror.revisions.get(theirs.id);
      if (!mine) continue;
      const active = mine.status === 'DEPLOYED' && deployment.active_revision_id === mine.id;
      const url = active ? deployment.source_config.custom_url : null;
      const differs =
        mine.status !== theirs.status ||
        mine.status_message !== theirs.status_message ||
        (mine.source_revision_config.repo_commit_sha !== null &&
          mine.source_revision_config.repo_commit_sha !== theirs.source_revision_config.repo_commit_sha) ||
        (url !== null && url !== assignment.source_config.custom_url);
      if (!differs) continue;
      const report: RevisionStatusReport = {
        status: mine.status,
        status_message: mine.status_message,
        repo_commit_sha: mine.source_revision_config.repo_commit_sha,
        custom_url: url,
      };
      await this.client.reportStatus(mine.id, report);
      this.log.info('revision status reported', { deployment_id: mine.deployment_id, revision_id: mine.id, from: theirs.status, status: mine.status });
    }
  }

  /** New lines of the build logs still being written and of the serving revision's server log. */
  private async sendLogs(assignment: ListenerAssignment): Promise<void> {
    const deployment = await this.mirror.deployments.get(assignment.deployment_id);
    if (!deployment) return;
    for (const mine of await this.mirror.revisions.ofDeployment(deployment.id)) {
      await this.sendLog(mine, 'build');
      if (mine.id === deployment.active_revision_id || (!isFinished(mine.status) && mine.status !== 'CREATING')) await this.sendLog(mine, 'deploy');
    }
  }

  private async sendLog(revision: RevisionRecord, kind: LogKind): Promise<void> {
    const key = `${revision.id}:${kind}`;
    if (this.logsComplete.has(key)) return;
    for (;;) {
      const from = this.logCursors.get(key) ?? 0;
      const page = await this.deployer.readLogs(revision, kind, { offset: String(from), limit: LOG_BATCH, order: 'asc' });
      const logs = withinBatch(page.logs);
      if (logs.length > 0) {
        try {
          await this.client.reportLogs(revision.id, { type: kind, from, logs });
        } catch (err) {
          // past the listener's log budget: the same lines go at a later pass
          if (err instanceof ReportRefused && err.later) return;
          throw err;
        }
        this.logCursors.set(key, from + logs.length);
      }
      if (logs.length < page.logs.length) continue;
      if (page.next_offset === null) this.logsComplete.add(key);
      if (page.logs.length < LOG_BATCH) return;
    }
  }
}

/** The first lines of a page that fit one call (at least one), each cut to LOG_LINE_BYTES. */
function withinBatch(lines: RevisionLogLine[]): RevisionLogLine[] {
  const batch: RevisionLogLine[] = [];
  let bytes = 0;
  for (const line of lines) {
    const message = line.message.length > LOG_LINE_BYTES ? `${line.message.slice(0, LOG_LINE_BYTES)}… (cut at ${LOG_LINE_BYTES} characters)` : line.message;
    // the line's JSON around its message is under 100 bytes
    bytes += Buffer.byteLength(message) + 100;
    if (batch.length > 0 && bytes > LOG_BATCH_BYTES) break;
    batch.push(message === line.message ? line : { ...line, message });
  }
  return batch;
}

/**
 * The mirror's deployment: the settings the control plane holds (secrets, source config,
 * latest revision) with what only this machine knows (its status, active revision and, for
 * a deployment whose URL the deployer assigns, that URL). The same record when nothing changed.
 */
function mirrored(assignment: ListenerAssignment, mine: DeploymentRecord | undefined): DeploymentRecord {
  const latest = assignment.revisions.at(-1)?.id ?? null;
  const config = {
    ...(assignment.source_config as DeploymentRecord['source_config']),
    custom_url: mine?.source_config.custom_url ?? assignment.source_config.custom_url ?? null,
  };
  if (
    mine &&
    mine.latest_revision_id === latest &&
    JSON.stringify(mine.secrets) === JSON.stringify(assignment.secrets) &&
    JSON.stringify(mine.source_config) === JSON.stringify(config)
  )
    return mine;
  const now = timestamp();
  return {
    id: assignment.deployment_id,
    tenant_id: mine?.tenant_id ?? 'listener',
    tenant_name: `listener/${assignment.name}`,
    name: assignment.name,
    source: assignment.source,
    source_config: config,
    secrets: assignment.secrets,
    created_at: mine?.created_at ?? now,
    updated_at: now,
    status: mine?.status ?? 'AWAITING_DATABASE',
    latest_revision_id: latest,
    active_revision_id: mine?.active_revision_id ?? null,
    image_version: assignment.image_version,
  };
}
