// The revision engine as a singleton: revisions are driven through their phases by one server
// at a time among those sharing the store (SingletonDuty). Each term of leadership runs an
// engine of its own, made fresh, whose start picks up every unfinished revision and
// deletion as after a restart (resume); a term ends by stopping it. A request served by a
// server that does not lead tells the leader about the revision or deletion it stored; the
// leader reads it back from the store and drives it. Logs are read on any server.
import type { RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { Coordination } from '../../ports/coordination.ts';
import type { Logger } from '../../ports/logger.ts';
import { SingletonDuty, type Term } from '../../singletonDuty.ts';
import type { ControlPlaneRepository, RevisionRecord } from '../records.ts';
import type { LogRequest } from './revisionLogs.ts';
import type { RevisionDriver, LogKind } from './types.ts';

/** What the leader is told: a revision to drive, or a deployment to clean up. */
type Message = { submit: string } | { retire: string };

interface DeployerTerm extends Term {
  deployer: RevisionDriver;
}

/** How often the leader looks for unfinished work again when replicas share the store. */
export const DEPLOYER_RESCAN_MS = 30_000;

export class LeadingDriver implements RevisionDriver {
  private readonly duty: SingletonDuty<DeployerTerm>;
  private reader: RevisionDriver | null = null;

  constructor(
    private readonly repo: ControlPlaneRepository,
    coordination: Coordination,
    private readonly log: Logger,
    /** A new deployer, for one term of leadership (and one to read logs with). */
    private readonly create: () => RevisionDriver,
    rescanMs = DEPLOYER_RESCAN_MS,
  ) {
    this.duty = new SingletonDuty(coordination, 'deployer', log, () => this.begin(), { rescanMs });
  }

  start(): Promise<void> {
    return this.duty.start();
  }

  async stop(): Promise<void> {
    await this.duty.stop();
    await this.reader?.stop();
  }

  submit(revision: RevisionRecord): void {
    const term = this.duty.leading;
    if (term) term.deployer.submit(revision);
    else this.duty.tell(JSON.stringify({ submit: revision.id } satisfies Message));
  }

  retire(deploymentId: string): void {
    const term = this.duty.leading;
    if (term) term.deployer.retire(deploymentId);
    else this.duty.tell(JSON.stringify({ retire: deploymentId } satisfies Message));
  }

  async resume(): Promise<void> {
    await this.duty.leading?.deployer.resume();
  }

  readLogs(revision: RevisionRecord, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    return (this.duty.leading?.deployer ?? (this.reader ??= this.create())).readLogs(revision, kind, request);
  }

  private async begin(): Promise<DeployerTerm> {
    const deployer = this.create();
    try {
      // every unfinished revision and deletion, as on a start
      await deployer.start?.();
    } catch (err) {
      await deployer.stop();
      throw err;
    }
    const rescan = coalesced(() => deployer.resume());
    return {
      deployer,
      hear: (payload) =>
        void this.heard(deployer, payload, rescan).catch((err: Error) =>
          this.log.error('deployer could not take up work it was told about; it is picked up at the next look', { message: payload, error: err.message }),
        ),
      end: () => deployer.stop(),
    };
  }

  private async heard(deployer: RevisionDriver, payload: string, rescan: () => Promise<void>): Promise<void> {
    if (payload === '') return rescan();
    const message = JSON.parse(payload) as Message;
    if ('submit' in message) {
      const revision = await this.repo.revisions.get(message.submit);
      if (revision) deployer.submit(revision);
    } else deployer.retire(message.retire);
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
