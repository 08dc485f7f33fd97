// What the control plane stores, and where. Records keep what responses never show (secret
// values, client secrets, lookup keys); views.ts turns them into wire objects.
import type {
  AuthProvider,
  Deployment,
  Listener,
  RevisionStatus,
  Secret,
  Source,
  SourceConfig,
  SourceRevisionConfig,
} from '../../../generated/control-plane/types.gen.ts';
import type { Collection, Store, WriteOp } from '../ports/store.ts';
import { KeyedLock, type Locks } from '../keyedLock.ts';
import type { DeploymentsRepository } from '../ports/deploymentsRepository.ts';
import { CollectionDeployments } from './collectionDeployments.ts';

/** The wire Deployment, minus the latest revision's settings, with real secret values. */
export type DeploymentRecord = Omit<Deployment, 'source_config' | 'source_revision_config' | 'secrets'> & {
  /** `${tenant_id}/${name}`, indexed: the per-tenant name uniqueness check is one look-up. */
  tenant_name: string;
  source_config: Required<SourceConfig>;
  /** Real values; only ever returned masked. */
  secrets: Secret[];
};

export interface RevisionRecord {
  id: string;
  deployment_id: string;
  tenant_id: string;
  created_at: string;
  updated_at: string;
  status: RevisionStatus;
  status_message: string | null;
  source: Source;
  source_revision_config: Required<SourceRevisionConfig>;
  /** Redeploys reuse the image built for the original, so they skip the build phases. */
  redeploy_of: string | null;
}

export interface ProviderRecord extends Required<Omit<AuthProvider, 'provider_type' | 'mcp_server_url'>> {
  provider_type: AuthProvider['provider_type'];
  mcp_server_url: string | null;
  tenant_id: string;
  /** `${tenant_id}/${provider_id}`, indexed for look-ups by the caller-chosen id. */
  tenant_provider: string;
  client_secret: string | null;
}

/** The wire Listener plus its tenant and its `compute_id` lookup key. */
export interface ListenerRecord extends Listener {
  tenant_id: string;
  /**
   * SHA-256 (hex) of the listener's own token, which is never stored; null for a listener
   * registered before listeners had tokens (it gets one by rotation).
   */
  token_hash: string | null;
  /** `${tenant_id}/${compute_id}`, indexed: the per-tenant uniqueness check is one look-up. */
  tenant_compute: string;
}

export const COLLECTIONS = {
  deployments: 'cp-deployments',
  revisions: 'cp-revisions',
  providers: 'cp-auth-providers',
  listeners: 'cp-listeners',
} as const;

/** The collections plus the per-deployment lock every writer goes through. */
export class ControlPlaneRepository {
  readonly deployments: Collection<DeploymentRecord>;
  readonly revisions: Collection<RevisionRecord>;
  readonly providers: Collection<ProviderRecord>;
  readonly listeners: Collection<ListenerRecord>;
  /** The deployments list (in SQL on PostgreSQL). */
  readonly queries: DeploymentsRepository<DeploymentRecord>;
  constructor(
    readonly store: Store,
    readonly locks: Locks = new KeyedLock(),
    /** Over the deployments collection when absent (see collectionDeployments.ts). */
    queries?: DeploymentsRepository<DeploymentRecord>,
  ) {
    this.deployments = store.collection(COLLECTIONS.deployments, { indexes: ['tenant_id', 'tenant_name', 'status'] });
    this.revisions = store.collection(COLLECTIONS.revisions, { indexes: ['deployment_id', 'status'] });
    this.providers = store.collection(COLLECTIONS.providers, { indexes: ['tenant_id', 'tenant_provider'] });
    this.listeners = store.collection(COLLECTIONS.listeners, { indexes: ['tenant_id', 'tenant_compute', 'status'] });
    this.queries = queries ?? new CollectionDeployments(this.deployments);
  }

  /** Another tenant's deployment is reported as missing, like one that does not exist. */
  async deploymentOf(tenantId: string, id: string): Promise<DeploymentRecord | undefined> {
    const record = await this.deployments.get(id);
    return record && record.tenant_id === tenantId ? record : undefined;
  }

  revisionsOf(deploymentId: string): Promise<RevisionRecord[]> {
    return this.revisions.list({ where: { deployment_id: deploymentId } });
  }

  /** Removes a deployment and all its revisions in one atomic write. */
  async remove(deploymentId: string): Promise<void> {
    const revisions = await this.revisionsOf(deploymentId);
    await this.store.write([
      ...revisions.map((r): WriteOp => ({ collection: COLLECTIONS.revisions, id: r.id, delete: true })),
      { collection: COLLECTIONS.deployments, id: deploymentId, delete: true },
    ]);
  }
}

export const putDeployment = (value: DeploymentRecord): WriteOp => ({ collection: COLLECTIONS.deployments, id: value.id, value });
export const putRevision = (value: RevisionRecord): WriteOp => ({ collection: COLLECTIONS.revisions, id: value.id, value });
