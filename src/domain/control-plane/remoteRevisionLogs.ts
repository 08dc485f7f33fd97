// The logs of revisions a listener reconciles, as the control plane keeps them: the listener
// reports the lines its own target wrote (reportRevisionLogs) and the revision's log reads
// them back. The port; the files that keep them are an adapter's (adapters/log-files/).
import type { RevisionLogLine, RevisionLogs } from '../../../generated/control-plane/types.gen.ts';
import type { LogKind } from './deployTarget.ts';
import type { LogRequest } from './deployer/revisionLogs.ts';
import type { RevisionRecord } from './records.ts';

export interface RemoteRevisionLogs {
  /** Stores a batch of the listener's lines, which start at its line `from`; a batch sent again is not stored twice. */
  append(revision: RevisionRecord, kind: LogKind, from: number, lines: RevisionLogLine[]): Promise<void>;
  /** A page of what is kept; with `wait_ms` and nothing new yet, waits for lines until `isComplete`. */
  read(revision: RevisionRecord, kind: LogKind, request: LogRequest, isComplete: () => Promise<boolean>): Promise<RevisionLogs>;
  /** Forgets every log of a deployment. */
  remove(deploymentId: string): Promise<void>;
}
