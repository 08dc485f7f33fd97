// The one driver of revisions, whatever target runs them (deployTarget.ts): each revision goes
// from its stored status to a final one, status by status (revisionStateMachine.ts), and each
// status is stored under the deployment's lock before the work of the next one starts, so
// after a restart `resume()` redoes at most the step in progress. A deployment's jobs run one
// at a time, in order (jobChains.ts): a newer revision waits while an earlier one builds or
// deploys. A step that throws is tried again with doubling waits; one stopped on purpose
// (the deployment retired, the server stopping) ends as `Cancelled`. The engine also writes
// the deployment's side of a transition (READY, active revision, URL) and masks the
// deployment's secrets in every status_message.
//
// Two options of the engine decide what it drives when it is not alone. Leadership: among
// servers sharing the store one drives at a time (SingletonDuty); each term of leadership
// works with a target of its own, made fresh, and begins by picking up every unfinished
// revision and deletion as after a restart; a server that does not lead tells the leader
// about the revision or deletion a request stored, and the leader reads it back and drives
// it. Ownership: a deployment reconciled elsewhere (by a listener) is never driven here,
// and its logs are read from what its owner sent.
import type { RevisionLogs } from '../../../generated/control-plane/types.gen.ts';
import type { Logger } from '../ports/logger.ts';
import type { Coordination } from '../ports/coordination.ts';
import { SingletonDuty, type Term } from '../singletonDuty.ts';
import { timestamp } from '../clock.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type RevisionRecord } from './records.ts';
import { removeDeployment } from './deploymentQuotas.ts';
import { redactor, secretValues } from './redaction.ts';
import { logDeploymentDeleted, logTransition } from './transitionLog.ts';
import { JobChains } from './deployer/jobChains.ts';
import type { LogRequest } from './deployer/revisionLogs.ts';
import type { RevisionDriver } from './deployer/types.ts';
import type { DeployTarget, LogKind } from './deployTarget.ts';
import { IN_PROGRESS, UNFINISHED, isFinished, nextStep, workAt, type RevisionFacts, type Step, type StepOutcome } from './revisionStateMachine.ts';

/** A revision job stopped on purpose (the deployment is being deleted, or the server stops). */
export class Cancelled extends Error {}

export interface RevisionEngineOptions {
  /** First wait before a failed step is tried again (doubling, up to 30 s). */
  retryMs: number;
  /** A pause before each step (the simulated target's phase length); none (not even a turn of the event loop) for real targets. */
  stepDelayMs?: number;
  /** Servers share the store: this one drives only while it leads; without it, always. */
  leadership?: Leadership;
  /** Deployments driven elsewhere are passed over; without it, every deployment is this engine's. */
  ownership?: Ownership;
}

export interface Leadership {
  coordination: Coordination;
  /** The store as requests see it: a revision the leader is told about is read back from it. */
  repo: ControlPlaneRepository;
  /** How often the leader looks for unfinished work again when servers share the store. */
  rescanMs?: number;
}

export interface Ownership {
  /** Whether this engine drives the deployment (one gone is its own: its step finds nothing to do either). */
  owns(deploymentId: string): Promise<boolean>;
  /** The logs of a revision whose deployment another drives, or undefined when this engine drives it. */
  foreignLogs(revision: RevisionRecord, kind: LogKind, request: LogRequest): Promise<RevisionLogs | undefined>;
}

/** How often the leader looks for unfinished work again when replicas share the store. */
export const DEPLOYER_RESCAN_MS = 30_000;

/** The deployment's side of a revision's transition, or undefined when it does not change. */
export function deploymentAfter(
  deployment: DeploymentRecord,
  before: RevisionRecord,
  after: RevisionRecord,
  servedUrl: string | null,
  now: string,
): DeploymentRecord | undefined {
  if (before.status === 'CREATING' && deployment.status === 'AWAITING_DATABASE') return { ...deployment, status: 'READY', updated_at: now };
  if (after.status !== 'DEPLOYED') return undefined;
  const chosen = deployment.source_config.custom_url;
  // the server assigns a github deployment its address; an image's client may have put a proxy
  // of theirs in front (a load balancer, an ingress), which stays
  const url = deployment.source === 'github' ? (servedUrl ?? chosen) : (chosen ?? servedUrl);
  return {
    ...deployment,
    status: 'READY',
    active_revision_id: after.id,
    source_config: { ...deployment.source_config, custom_url: url },
    updated_at: now,
  };
}

/** The engine's work over one target: for one term of leadership, or for good without leadership. */
class EngineTerm {
  private readonly stopping = new AbortController();
  private readonly jobs: JobChains;
  /** Per deployment: aborted when it is retired (a build in progress stops rather than being waited for). */
  private readonly aborts = new Map<string, AbortController>();
  private stopped = false;

  constructor(
    private readonly repo: ControlPlaneRepository,
    private readonly target: DeployTarget,
    private readonly log: Logger,
    private readonly options: RevisionEngineOptions,
  ) {
    this.jobs = new JobChains(this.stopping.signal, log, options.retryMs, (err) => err instanceof Cancelled);
  }

  async start(): Promise<void> {
    await this.target.start?.({ restoreLater: (deploymentId) => this.jobs.enqueue(deploymentId, () => this.restore(deploymentId)) });
    await this.resume();
  }

  submit(revision: RevisionRecord): void {
    this.jobs.enqueue(revision.deployment_id, () => this.drive(revision.deployment_id, revision.id));
  }

  retire(deploymentId: string): void {
    this.aborts.get(deploymentId)?.abort();
    this.jobs.enqueue(deploymentId, () => this.cleanUp(deploymentId));
  }

  async resume(): Promise<void> {
    // what was serving before the restart serves again first, then unfinished work continues
    if (this.target.restore) {
      for (const deployment of await this.repo.deployments.withStatus('READY')) {
        if (deployment.active_revision_id) this.jobs.enqueue(deployment.id, () => this.restore(deployment.id));
      }
    }
    const unfinished: RevisionRecord[] = [];
    for (const status of UNFINISHED) unfinished.push(...(await this.repo.revisions.withStatus(status)));
    // a deployment's revision that had started goes on before those that wait for it
    const rank = (r: RevisionRecord) => (IN_PROGRESS.has(r.status) ? 0 : 1);
    unfinished.sort((a, b) => rank(a) - rank(b) || a.created_at.localeCompare(b.created_at));
    for (const revision of unfinished) this.submit(revision);
    for (const deployment of await this.repo.deployments.withStatus('AWAITING_DELETE')) this.retire(deployment.id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    for (const controller of this.aborts.values()) controller.abort();
    await this.jobs.settled();
    await this.target.release?.();
  }

  async readLogs(revision: RevisionRecord, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    return this.target.logs(revision, await this.repo.deployments.get(revision.deployment_id), kind, request);
  }

  // ---- jobs ----

  private signalFor(deploymentId: string): AbortSignal {
    let controller = this.aborts.get(deploymentId);
    if (!controller || controller.signal.aborted) {
      controller = new AbortController();
      this.aborts.set(deploymentId, controller);
    }
    return controller.signal;
  }

  /** The pause before a step, if any; a retire or a stop ends it (Cancelled). */
  private async pace(signal: AbortSignal): Promise<void> {
    const ms = this.options.stepDelayMs;
    // even a pause of 0 yields to the timers: each step is a turn of the event loop, as a phase's
    if (ms === undefined) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.stopping.signal.addEventListener('abort', done, { once: true });
    });
    if (signal.aborted || this.stopped) throw new Cancelled();
  }

  /** Drives one revision from its stored status to a final one. */
  private async drive(deploymentId: string, revisionId: string): Promise<void> {
    for (;;) {
      const stored = await this.repo.revisions.get(revisionId);
      if (!stored || isFinished(stored.status)) return;
      const signal = this.signalFor(deploymentId);
      await this.pace(signal);
      // read after the pause: a PATCH or a newer revision may have come meanwhile
      const revision = await this.repo.revisions.get(revisionId);
      if (!revision || isFinished(revision.status)) return;
      const deployment = await this.repo.deployments.get(deploymentId);
      if (!deployment || deployment.status === 'AWAITING_DELETE') return;
      const facts: RevisionFacts = { builds: this.target.builds && deployment.source === 'github' && revision.redeploy_of === null };
      const { outcome, url } = await this.work(deployment, revision, facts, signal);
      const step = nextStep(revision.status, facts, outcome);
      if (!step) throw new Error(`revision ${revision.id}: no transition from ${revision.status} after ${outcome.kind}`);
      await this.transition(revision, step, url);
      if (isFinished(step.status)) return;
    }
  }

  /** The target's work the revision's status asks for, if any. */
  private async work(
    deployment: DeploymentRecord,
    revision: RevisionRecord,
    facts: RevisionFacts,
    signal: AbortSignal,
  ): Promise<{ outcome: StepOutcome; url: string | null }> {
    const work = workAt(revision.status, facts);
    if (work === 'build') {
      const built = await this.target.build(deployment, revision, signal);
      if (signal.aborted) throw new Cancelled();
      return { outcome: { kind: 'built', ...built }, url: null };
    }
    if (work === 'deploy') {
      const deployed = await this.target.deploy(deployment, revision, signal);
      if (signal.aborted) throw new Cancelled();
      return deployed.ok
        ? { outcome: { kind: 'deployed', ok: true }, url: deployed.url }
        : { outcome: { kind: 'deployed', ok: false, reason: deployed.reason }, url: null };
    }
    return { outcome: { kind: 'noted' }, url: null };
  }

  /** Stores the revision's next status (and the deployment's side of it) unless it moved on meanwhile. */
  private async transition(before: RevisionRecord, step: Step, url: string | null): Promise<void> {
    await this.repo.locks.run(before.deployment_id, async () => {
      if (this.stopped) throw new Cancelled();
      const revision = await this.repo.revisions.get(before.id);
      const deployment = await this.repo.deployments.get(before.deployment_id);
      // superseded (SKIPPED) or deleted meanwhile: nothing more to do for it
      if (!revision || revision.status !== before.status || !deployment || deployment.status === 'AWAITING_DELETE') throw new Cancelled();
      const now = timestamp();
      const message = step.status_message === 'keep' ? revision.status_message : step.status_message;
      const next: RevisionRecord = {
        ...revision,
        status: step.status,
        // the message carries output of the deployment's own commands
        status_message: message === null ? null : redactor(secretValues(deployment))(message),
        updated_at: now,
        source_revision_config: step.repo_commit_sha
          ? { ...revision.source_revision_config, repo_commit_sha: step.repo_commit_sha }
          : revision.source_revision_config,
      };
      const deploymentNext = deploymentAfter(deployment, revision, next, url, now);
      await this.repo.write(deploymentNext ? [putRevision(next), putDeployment(deploymentNext)] : [putRevision(next)]);
      logTransition(this.log, revision, next, { before: deployment, after: deploymentNext });
    });
  }

  private async restore(deploymentId: string): Promise<void> {
    await this.target.restore?.(deploymentId, this.signalFor(deploymentId));
  }

  /** Removes everything of a deployment in AWAITING_DELETE, then its records. */
  private async cleanUp(deploymentId: string): Promise<void> {
    await this.pace(this.signalFor(deploymentId));
    const deployment = await this.repo.deployments.get(deploymentId);
    if (deployment && deployment.status !== 'AWAITING_DELETE') return;
    await this.target.remove(deploymentId, deployment);
    this.aborts.delete(deploymentId);
    await this.repo.locks.run(deploymentId, async () => {
      const now = await this.repo.deployments.get(deploymentId);
      // gone already (removed with ?force=true while this waited): its files went all the same
      if (now && now.status !== 'AWAITING_DELETE') return;
      if (now) await removeDeployment(this.repo, now);
      logDeploymentDeleted(this.log, deploymentId, 'cleaned up');
    });
  }
}

/** What the leader is told: a revision to drive, or a deployment to clean up. */
type Message = { submit: string } | { retire: string };

interface LeadingTerm extends Term {
  work: EngineTerm;
}

export class RevisionEngine implements RevisionDriver {
  /** Without leadership: the one term, for good. */
  private readonly sole: EngineTerm | null = null;
  private readonly duty: SingletonDuty<LeadingTerm> | null = null;
  /** With leadership: a term never started, to read logs with while this server does not lead. */
  private reader: EngineTerm | null = null;
  private readonly newTerm: () => EngineTerm;

  constructor(
    repo: ControlPlaneRepository,
    /** The target, or a maker of a fresh one for each term of leadership (and one to read logs with). */
    target: DeployTarget | (() => DeployTarget),
    private readonly log: Logger,
    private readonly options: RevisionEngineOptions,
  ) {
    const targets = typeof target === 'function' ? target : () => target;
    this.newTerm = () => new EngineTerm(repo, targets(), log, options);
    const { leadership } = options;
    if (leadership) {
      this.duty = new SingletonDuty(leadership.coordination, 'deployer', log, () => this.begin(), { rescanMs: leadership.rescanMs ?? DEPLOYER_RESCAN_MS });
    } else this.sole = this.newTerm();
  }

  async start(): Promise<void> {
    if (this.duty) return this.duty.start();
    return this.sole!.start();
  }

  async stop(): Promise<void> {
    if (!this.duty) return this.sole!.stop();
    await this.duty.stop();
    await this.reader?.stop();
  }

  submit(revision: RevisionRecord): void {
    // a remote deployment's revisions are its listener's
    this.whenOwned(revision.deployment_id, () => this.handSubmit(revision));
  }

  retire(deploymentId: string): void {
    // a remote deployment is removed when its listener reports it took it down
    this.whenOwned(deploymentId, () => this.handRetire(deploymentId));
  }

  async resume(): Promise<void> {
    if (!this.duty) return this.sole!.resume();
    await this.duty.leading?.work.resume();
  }

  async readLogs(revision: RevisionRecord, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    const foreign = await this.options.ownership?.foreignLogs(revision, kind, request);
    if (foreign) return foreign;
    return this.working().readLogs(revision, kind, request);
  }

  /** The term to read logs with: the one driving here, else the reader. */
  private working(): EngineTerm {
    if (!this.duty) return this.sole!;
    return this.duty.leading?.work ?? (this.reader ??= this.newTerm());
  }

  private whenOwned(deploymentId: string, then: () => void): void {
    const { ownership } = this.options;
    if (!ownership) return then();
    void ownership.owns(deploymentId).then((owned) => {
      if (owned) then();
    });
  }

  private handSubmit(revision: RevisionRecord): void {
    if (!this.duty) return this.sole!.submit(revision);
    const term = this.duty.leading;
    if (term) term.work.submit(revision);
    else this.duty.tell(JSON.stringify({ submit: revision.id } satisfies Message));
  }

  private handRetire(deploymentId: string): void {
    if (!this.duty) return this.sole!.retire(deploymentId);
    const term = this.duty.leading;
    if (term) term.work.retire(deploymentId);
    else this.duty.tell(JSON.stringify({ retire: deploymentId } satisfies Message));
  }

  /** Begins a term of leadership: a fresh term picks up every unfinished revision and deletion, as on a start. */
  private async begin(): Promise<LeadingTerm> {
    const work = this.newTerm();
    try {
      await work.start();
    } catch (err) {
      await work.stop();
      throw err;
    }
    const rescan = coalesced(() => work.resume());
    return {
      work,
      hear: (payload) =>
        void this.heard(work, payload, rescan).catch((err: Error) =>
          this.log.error('deployer could not take up work it was told about; it is picked up at the next look', { message: payload, error: err.message }),
        ),
      end: () => work.stop(),
    };
  }

  private async heard(work: EngineTerm, payload: string, rescan: () => Promise<void>): Promise<void> {
    if (payload === '') return rescan();
    const message = JSON.parse(payload) as Message;
    if ('submit' in message) {
      const revision = await this.options.leadership!.repo.revisions.get(message.submit);
      if (revision) work.submit(revision);
    } else work.retire(message.retire);
  }
}

/** `work`, never twice at once: a call while it runs makes it run once more afterwards. */
function coalesced(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await work();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}
