// The listener's side of the protocol: its heartbeat (answered with what is assigned to it),
// the statuses and logs it reports for revisions assigned to it, and the removal of a
// deleted deployment it took down. Each call carries the listener's own token
// (listenerTokens.ts): no token opens another listener, and an API key opens none. A
// listener sees only its own tenant's deployments that name it in
// `source_config.listener_id`; anything else is reported as missing.
import type { ListenerAssignment, ListenerHeartbeat, Revision, RevisionLogReport, RevisionStatusReport } from '../../../generated/control-plane/types.gen.ts';
import type { Logger } from '../ports/logger.ts';
import { timestamp } from '../clock.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { deploymentNotFound, invalid, revisionNotFound } from './failures.ts';
import { deploymentsOfListener, toListener } from './listeners.ts';
import { listenerByToken } from './listenerTokens.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type ListenerRecord, type RevisionRecord } from './records.ts';
import { removeDeployment } from './deploymentQuotas.ts';
import type { RemoteRevisionLogs } from './remoteRevisionLogs.ts';
import { LOG_BYTES_PER_S, type LogBudget } from './listenerLogBudget.ts';
import { logDeploymentDeleted, logTransition } from './transitionLog.ts';
import { toRevision } from './views.ts';
import { reportable } from './revisionStateMachine.ts';
import { customUrlProblem } from './sourceRules.ts';

export interface ListenerDeps {
  repo: ControlPlaneRepository;
  remoteLogs: RemoteRevisionLogs;
  logBudget: LogBudget;
  log: Logger;
}

/** Who calls as the listener: the listener `token` opens, and only listener `listenerId`. */
export interface ListenerCall {
  listenerId: string;
  token: string;
}

/** The listener is heard from; it gets every deployment assigned to it, with its revisions and secrets. */
export async function listenerHeartbeat({ repo }: ListenerDeps, { listenerId, token }: ListenerCall): Promise<Outcome<ListenerHeartbeat, 'unauthenticated'>> {
  const heard = await repo.locks.run(`listener:${listenerId}`, async () => {
    // checked under the lock: a rotation that lands first has revoked this token
    const found = await listenerByToken(repo, listenerId, token);
    if (!found.ok) return found;
    const next = { ...found.value, status: 'CONNECTED' as const, last_heard_at: timestamp() };
    await repo.listeners.put(next);
    return ok(next);
  });
  if (!heard.ok) return heard;
  const deployments = await deploymentsOfListener(repo, heard.value.tenant_id, listenerId);
  const assignments = await Promise.all(deployments.map((d) => assignmentOf(repo, d)));
  return ok({ listener: toListener(heard.value), assignments });
}

async function assignmentOf(repo: ControlPlaneRepository, deployment: DeploymentRecord): Promise<ListenerAssignment> {
  const revisions = (await repo.revisions.ofDeployment(deployment.id)).sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
  return {
    deployment_id: deployment.id,
    name: deployment.name,
    source: deployment.source,
    status: deployment.status,
    // unmasked: the listener clones and deploys with the real repository URL and secrets
    source_config: deployment.source_config,
    secrets: deployment.secrets,
    image_version: deployment.image_version ?? null,
    revisions: revisions.map((r) => ({
      id: r.id,
      status: r.status,
      status_message: r.status_message,
      redeploy_of: r.redeploy_of,
      created_at: r.created_at,
      source_revision_config: r.source_revision_config,
    })),
  };
}

/** The revision and its deployment when the revision is assigned to this listener (of its tenant). */
async function assigned(
  repo: ControlPlaneRepository,
  listener: ListenerRecord,
  revisionId: string,
): Promise<Outcome<{ revision: RevisionRecord; deployment: DeploymentRecord }, 'not_found'>> {
  const revision = await repo.revisions.get(revisionId);
  const deployment = revision && (await repo.deployments.ofTenant(listener.tenant_id, revision.deployment_id));
  if (!revision || !deployment || deployment.source_config.listener_id !== listener.id) return revisionNotFound(revisionId);
  return ok({ revision, deployment });
}

export async function reportRevisionStatus(
  { repo, log }: ListenerDeps,
  call: ListenerCall,
  revisionId: string,
  report: RevisionStatusReport,
): Promise<Outcome<Revision, 'not_found' | 'unauthenticated' | 'unprocessable' | 'conflict'>> {
  const listener = await listenerByToken(repo, call.listenerId, call.token);
  if (!listener.ok) return listener;
  const found = await assigned(repo, listener.value, revisionId);
  if (!found.ok) return found;
  // the rule create and PATCH hold custom_url to: a link the dashboard renders, a URL clients call
  const url = customUrlProblem(report.custom_url);
  if (url) return fail('unprocessable', `custom_url: ${url.msg}`, { problems: [{ loc: ['body', 'custom_url'], msg: url.msg }] });
  return repo.locks.run(found.value.deployment.id, async () => {
    const again = await assigned(repo, listener.value, revisionId);
    if (!again.ok) return again;
    const { revision, deployment } = again.value;
    if (!reportable(revision.status, report.status)) {
      return fail('conflict', `Revision ${revisionId} is ${revision.status}; a listener cannot report it ${report.status} (a revision only moves forward).`);
    }
    const now = timestamp();
    const sha = report.repo_commit_sha ?? revision.source_revision_config.repo_commit_sha;
    const next: RevisionRecord = {
      ...revision,
      status: report.status,
      status_message: report.status_message ?? null,
      source_revision_config: { ...revision.source_revision_config, repo_commit_sha: sha },
      updated_at: now,
    };
    const deploymentNext = deploymentAfterReport(deployment, next, report.custom_url ?? null, now);
    const unchanged =
      next.status === revision.status && next.status_message === revision.status_message && sha === revision.source_revision_config.repo_commit_sha;
    if (unchanged && !deploymentNext) return ok(toRevision(revision));
    await repo.write(deploymentNext ? [putRevision(next), putDeployment(deploymentNext)] : [putRevision(next)]);
    logTransition(log, revision, next, { before: deployment, after: deploymentNext });
    return ok(toRevision(next));
  });
}

/** The deployment's side of a reported status: a new active revision, and READY once its listener speaks. */
function deploymentAfterReport(deployment: DeploymentRecord, revision: RevisionRecord, customUrl: string | null, now: string): DeploymentRecord | undefined {
  if (deployment.status === 'AWAITING_DELETE') return undefined;
  const status = revision.status === 'CREATING' && deployment.status === 'AWAITING_DATABASE' ? 'AWAITING_DATABASE' : 'READY';
  const deployed = revision.status === 'DEPLOYED';
  const url = deployed && customUrl ? customUrl : deployment.source_config.custom_url;
  const active = deployed ? revision.id : deployment.active_revision_id;
  if (status === deployment.status && url === deployment.source_config.custom_url && active === deployment.active_revision_id) return undefined;
  return { ...deployment, status, active_revision_id: active, source_config: { ...deployment.source_config, custom_url: url }, updated_at: now };
}

/** Stores a batch of log lines, unless the listener sends faster than its budget allows (nothing stored then). */
export async function reportRevisionLogs(
  { repo, remoteLogs, logBudget }: ListenerDeps,
  call: ListenerCall,
  revisionId: string,
  report: RevisionLogReport,
): Promise<Outcome<void, 'not_found' | 'unauthenticated' | 'rate_limited'>> {
  const listener = await listenerByToken(repo, call.listenerId, call.token);
  if (!listener.ok) return listener;
  const found = await assigned(repo, listener.value, revisionId);
  if (!found.ok) return found;
  const bytes = report.logs.reduce((sum, line) => sum + line.message.length, 0);
  const wait = logBudget.take(call.listenerId, bytes);
  if (wait !== null) {
    const detail = `Listener ${call.listenerId} sends logs faster than ${LOG_BYTES_PER_S / 1024 / 1024} MiB a second; send this batch again in ${wait} s.`;
    return fail('rate_limited', detail, { retry_after_s: wait });
  }
  await remoteLogs.append(found.value.revision, report.type, report.from, report.logs);
  return ok(undefined);
}

/** The listener took a deleted deployment down: its records go now. */
export async function reportDeploymentRemoved(
  { repo, remoteLogs, log }: ListenerDeps,
  call: ListenerCall,
  deploymentId: string,
): Promise<Outcome<void, 'not_found' | 'invalid' | 'unauthenticated'>> {
  const listener = await listenerByToken(repo, call.listenerId, call.token);
  if (!listener.ok) return listener;
  return repo.locks.run(deploymentId, async () => {
    const deployment = await repo.deployments.ofTenant(listener.value.tenant_id, deploymentId);
    if (!deployment || deployment.source_config.listener_id !== call.listenerId) return deploymentNotFound(deploymentId);
    if (deployment.status !== 'AWAITING_DELETE') return invalid(`Deployment ID ${deploymentId} is not being deleted.`);
    await removeDeployment(repo, deployment);
    await remoteLogs.remove(deploymentId);
    logDeploymentDeleted(log, deploymentId, 'cleaned up');
    return ok(undefined);
  });
}
