// The auth service's flows under way, as the flows keep them: a flow's start, its one atomic
// change at a time (the callback's claim, its end, a cut exchange failed), read by id and as a
// tenant's, a provider's or those exchanging a code. The `state` a flow's URL carries is
// stored as its hash and the PKCE verifier sealed, so reading the store does not let anyone
// complete a flow. Kept in the store's collection (adapters/embedded/collectionAuthFlows.ts).

export type FlowStatus = 'pending' | 'exchanging' | 'completed' | 'failed';

export interface AuthFlowRecord {
  /** The auth_id. */
  id: string;
  tenant_id: string;
  user_id: string;
  /** The provider's caller-chosen id, and its record's id (a provider re-created under the same name is another). */
  provider_id: string;
  provider_record_id: string;
  scopes: string[];
  /** SHA-256 (hex) of the secret part of the `state`. */
  state_hash: string;
  /** The PKCE code verifier, sealed; null without PKCE. */
  verifier: string | null;
  redirect_uri: string;
  status: FlowStatus;
  /** Who took the flow for its one exchange (single use; see flows.ts). */
  claim: string | null;
  token_id: string | null;
  error: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export interface AuthFlowsRepository {
  /** Stores a new flow. */
  start(flow: AuthFlowRecord): Promise<void>;
  get(authId: string): Promise<AuthFlowRecord | undefined>;
  /**
   * Atomic read-modify-write of one flow: `next` sees it as stored and returns its next version,
   * or undefined to leave it. Resolves to the flow as stored after the call (undefined: none).
   */
  change(authId: string, next: (flow: AuthFlowRecord) => AuthFlowRecord | undefined): Promise<AuthFlowRecord | undefined>;
  /** The flows exchanging their code now (status `exchanging`). */
  exchanging(): Promise<AuthFlowRecord[]>;
  ofTenant(tenantId: string): Promise<AuthFlowRecord[]>;
  /** The flows started with a provider record. */
  ofProvider(providerRecordId: string): Promise<AuthFlowRecord[]>;
  delete(authId: string): Promise<void>;
}
