// The control plane hands revisions and deletions to a RevisionDriver, which drives them to a
// terminal status: the revision engine (../revisionEngine.ts) over one deploy target
// (../deployTarget.ts), with leadership and ownership (listeners, remoteReconciliation.ts)
// as options of its own. The engine drives, a target does.
import type { RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { BackgroundModule } from '../../../shared/backgroundModule.ts';
import type { RevisionRecord } from '../records.ts';
import type { LogKind } from '../deployTarget.ts';
import type { LogRequest } from './revisionLogs.ts';

export type { LogKind };

export interface RevisionDriver extends BackgroundModule {
  /** Takes over a revision that was just stored in `CREATING`. */
  submit(revision: RevisionRecord): void;
  /** Cleans up a deployment just moved to `AWAITING_DELETE`, then removes its records. */
  retire(deploymentId: string): void;
  /** Picks up every unfinished revision and deletion (on start, after a restart). */
  resume(): Promise<void>;
  /** Stops scheduling and waits for the step in progress, if any. */
  stop(): Promise<void>;
  /** A page of the revision's build or server log. */
  readLogs(revision: RevisionRecord, kind: LogKind, request: LogRequest): Promise<RevisionLogs>;
}
