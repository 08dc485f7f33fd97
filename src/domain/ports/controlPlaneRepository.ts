// What the control plane stores, and the repositories it keeps it in: deployments with their
// revisions (one aggregate: a new revision and its deployment are written together), OAuth
// providers and listeners, each read by the operations the control plane asks and written
// whole, under the per-deployment lock every writer goes through. Records keep what responses
// never show (secret values, client secrets, lookup keys); views.ts turns them into wire
// objects. Kept in the store's collections (adapters/embedded/collectionControlPlane.ts), the
// deployments list in SQL on PostgreSQL (adapters/postgres/pgDeployments.ts).
import type {
  AuthProvider,
  Deployment,
  DeploymentStatus,
  ListDeploymentsQuery,
  Listener,
  RevisionStatus,
  Secret,
  Source,
  SourceConfig,
  SourceRevisionConfig,
} from '../../../generated/control-plane/types.gen.ts';
import type { Locks } from '../keyedLock.ts';

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

/** The list's filters, as the request names them. */
export type DeploymentFilter = Pick<ListDeploymentsQuery, 'name_contains' | 'status' | 'remote_reconciled' | 'image_version' | 'deployment_type'>;

/** What the filters read of a deployment record (a DeploymentRecord). */
export interface FilteredDeployment {
  name: string;
  status: string;
  image_version?: string | null;
  source_config: { listener_id: string | null; deployment_type?: string | null };
}

/**
 * What a tenant's deployments ask for together (deploymentQuotas.ts), kept beside them and
 * written in the same atomic write as each change of it: a create reads this one record, not
 * every deployment of its tenant (with the replicas' quota raised to 1,000,000, a create at
 * 100,000 deployments took 821 ms on PostgreSQL).
 */
export interface TenantTotalsRecord {
  /** The tenant's id. */
  id: string;
  /** The replicas its deployments ask for together (replicasAskedBy, summed). */
  replicas: number;
}

/** One record of an atomic write (putDeployment, putRevision, putTenantTotals in control-plane/records.ts). */
export type RecordWrite = { deployment: DeploymentRecord } | { revision: RevisionRecord } | { tenantTotals: TenantTotalsRecord };

export interface TenantTotalsRepository {
  /** The tenant's totals; undefined until a create or a change of scale first kept them. */
  get(tenantId: string): Promise<TenantTotalsRecord | undefined>;
}

export interface DeploymentsRepository {
  /** The deployment of this id, whichever tenant's. */
  get(id: string): Promise<DeploymentRecord | undefined>;
  /** The tenant's deployment of this id: another tenant's is missing, like one that does not exist. */
  ofTenant(tenantId: string, id: string): Promise<DeploymentRecord | undefined>;
  /** Every deployment, in the order they were created. */
  all(): Promise<DeploymentRecord[]>;
  withStatus(status: DeploymentStatus): Promise<DeploymentRecord[]>;
  countWithStatus(status: DeploymentStatus): Promise<number>;
  /** How many deployments the tenant holds (those being deleted included). */
  countOfTenant(tenantId: string): Promise<number>;
  /** Whether a deployment holds this `${tenant_id}/${name}`. */
  nameTaken(tenantName: string): Promise<boolean>;
  /** The tenant's deployments a listener reconciles (those naming it in `source_config.listener_id`). */
  ofListener(tenantId: string, listenerId: string): Promise<DeploymentRecord[]>;
  /** One page of the tenant's deployments matching the filter, newest (last created) first. */
  newestFirst(tenantId: string, filter: DeploymentFilter, page: { offset: number; limit: number }): Promise<DeploymentRecord[]>;
  put(deployment: DeploymentRecord): Promise<void>;
}

export interface RevisionsRepository {
  get(id: string): Promise<RevisionRecord | undefined>;
  /** The revisions of `ids`, in their order (undefined where there is none): one read. */
  getMany(ids: string[]): Promise<(RevisionRecord | undefined)[]>;
  withStatus(status: RevisionStatus): Promise<RevisionRecord[]>;
  /** A deployment's revisions, in the order they were created. */
  ofDeployment(deploymentId: string): Promise<RevisionRecord[]>;
  /** One page of a deployment's revisions that `keep` accepts (all without), newest first. */
  newestFirst(
    deploymentId: string,
    keep: ((revision: RevisionRecord) => boolean) | undefined,
    page: { offset: number; limit: number },
  ): Promise<RevisionRecord[]>;
  put(revision: RevisionRecord): Promise<void>;
}

export interface ProvidersRepository {
  get(id: string): Promise<ProviderRecord | undefined>;
  /** The provider a tenant calls by this id (`${tenant_id}/${provider_id}`). */
  named(tenantProvider: string): Promise<ProviderRecord | undefined>;
  ofTenant(tenantId: string): Promise<ProviderRecord[]>;
  all(): Promise<ProviderRecord[]>;
  put(provider: ProviderRecord): Promise<void>;
  delete(id: string): Promise<void>;
}

export interface ListenersRepository {
  get(id: string): Promise<ListenerRecord | undefined>;
  withStatus(status: Listener['status']): Promise<ListenerRecord[]>;
  /** One page of the tenant's listeners, newest (last registered) first. */
  newestFirst(tenantId: string, page: { offset: number; limit: number }): Promise<ListenerRecord[]>;
  /** Whether a listener holds this `${tenant_id}/${compute_id}`. */
  computeTaken(tenantCompute: string): Promise<boolean>;
  put(listener: ListenerRecord): Promise<void>;
  delete(id: string): Promise<void>;
}

export interface ControlPlaneRepository {
  readonly deployments: DeploymentsRepository;
  readonly revisions: RevisionsRepository;
  readonly providers: ProvidersRepository;
  readonly listeners: ListenersRepository;
  readonly tenantTotals: TenantTotalsRepository;
  /** The per-deployment (and per-name, per-listener, per-provider) lock every writer goes through. */
  readonly locks: Locks;
  /**
   * The locks taken inside those (a tenant's quota lock, inside a deployment's while it is
   * scaled or removed), never around one: on PostgreSQL held on connections of their own
   * (SerializeOptions.innermost in ports/coordination.ts).
   */
  readonly innermostLocks: Locks;
  /** Stores deployments and revisions in one atomic write: after a crash all or none are there. */
  write(writes: RecordWrite[]): Promise<void>;
  /** Removes a deployment and all its revisions in one atomic write, with `alongside` (its tenant's totals) in it. */
  remove(deploymentId: string, alongside?: RecordWrite[]): Promise<void>;
  /**
   * The same records as seen through `visible`: reads leave out the deployments it refuses
   * and their revisions (the control plane's own engine does not see those a listener
   * reconciles); writes pass through, under the same locks.
   */
  hiding(visible: (deployment: DeploymentRecord) => boolean): ControlPlaneRepository;
}
