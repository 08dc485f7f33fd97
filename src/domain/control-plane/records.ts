// What the control plane stores (the records, in ports/controlPlaneRepository.ts), and the
// writes that go into one atomic write of them.
import type { DeploymentRecord, RecordWrite, RevisionRecord, TenantTotalsRecord } from '../ports/controlPlaneRepository.ts';

export type {
  ControlPlaneRepository,
  DeploymentRecord,
  ListenerRecord,
  ProviderRecord,
  RecordWrite,
  RevisionRecord,
  TenantTotalsRecord,
} from '../ports/controlPlaneRepository.ts';

export const putDeployment = (deployment: DeploymentRecord): RecordWrite => ({ deployment });
export const putRevision = (revision: RevisionRecord): RecordWrite => ({ revision });
export const putTenantTotals = (tenantTotals: TenantTotalsRecord): RecordWrite => ({ tenantTotals });
