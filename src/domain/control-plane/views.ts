// Records → wire objects. Secret values never leave the server: every response carries the
// mask instead, whatever was stored.
import type { AuthProvider, Deployment, Revision, SourceRevisionConfig } from '../../../generated/control-plane/types.gen.ts';
import type { DeploymentRecord, ProviderRecord, RevisionRecord } from './records.ts';
import { maskRepoUrl } from './repoUrl.ts';
import { SECRET_MASK } from './secretMask.ts';

export { SECRET_MASK };

const NO_REVISION_CONFIG: Required<SourceRevisionConfig> = { repo_ref: null, graph_config_path: null, image_uri: null, repo_commit_sha: null };

/** `latest` is the deployment's latest revision, whose settings the deployment shows. */
export function toDeployment(record: DeploymentRecord, latest: RevisionRecord | undefined): Deployment {
  return {
    id: record.id,
    tenant_id: record.tenant_id,
    name: record.name,
    source: record.source,
    source_config: { ...record.source_config, repo_url: maskRepoUrl(record.source_config.repo_url) },
    source_revision_config: latest?.source_revision_config ?? NO_REVISION_CONFIG,
    secrets: record.secrets.map((s) => ({ name: s.name, value: SECRET_MASK })),
    created_at: record.created_at,
    updated_at: record.updated_at,
    status: record.status,
    latest_revision_id: record.latest_revision_id,
    active_revision_id: record.active_revision_id,
    image_version: record.image_version,
  };
}

export function toRevision(record: RevisionRecord): Revision {
  return {
    id: record.id,
    deployment_id: record.deployment_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
    status: record.status,
    status_message: record.status_message,
    source: record.source,
    source_revision_config: record.source_revision_config,
  };
}

export function toAuthProvider(record: ProviderRecord): AuthProvider {
  return {
    id: record.id,
    organization_id: record.organization_id,
    provider_id: record.provider_id,
    name: record.name,
    client_id: record.client_id,
    auth_url: record.auth_url,
    token_url: record.token_url,
    uses_pkce: record.uses_pkce,
    code_challenge_method: record.code_challenge_method,
    provider_type: record.provider_type,
    mcp_server_url: record.mcp_server_url,
    token_endpoint_auth_method: record.token_endpoint_auth_method,
    is_dynamic_client: record.is_dynamic_client,
    // providers stored before revocation was kept have none
    revocation_url: record.revocation_url ?? null,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
