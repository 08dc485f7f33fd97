// What a listener tells its control plane about the deployments it runs: the adapter
// (adapters/control-plane-client/controlPlaneClient.ts) sends each report with the listener's
// own token.
import type { RevisionLogReport, RevisionStatusReport } from '../../../generated/control-plane/types.gen.ts';

/** A report the control plane did not take; `later` when it asks for the same again later (its log budget). */
export class ReportRefused extends Error {
  constructor(
    message: string,
    readonly later: boolean,
  ) {
    super(message);
  }
}

export interface ListenerReports {
  reportStatus(revisionId: string, report: RevisionStatusReport): Promise<void>;
  reportLogs(revisionId: string, report: RevisionLogReport): Promise<void>;
  reportRemoved(deploymentId: string): Promise<void>;
}
