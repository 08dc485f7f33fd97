// Auth service operations (v2): authenticate, the provider's callback, wait, tokens, MCP discovery.
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AgentAuth } from '../../domain/control-plane/agentAuth/agentAuth.ts';
import { discoverMcpProvider } from '../../domain/control-plane/agentAuth/mcpDiscovery.ts';
import type { ControlPlaneRepository } from '../../domain/control-plane/records.ts';
import { fail } from '../../domain/outcome.ts';
import { answer, failed, tenantOf } from './failures.ts';

type AgentAuthHandlers = Pick<
  ControlPlaneHandlers<RequestContext>,
  'authenticate' | 'authCallback' | 'waitForAuth' | 'listAuthTokens' | 'deleteAuthTokens' | 'patchAuthTokenMetadata' | 'deleteAuthToken' | 'discoverMcpProvider'
>;

const page = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><p>${text}</p></body></html>`;
const CONNECTED = page('Connected', 'Connected. You can close this window and go back to the agent.');
const REFUSED = page('Not connected', 'This sign-in link is not valid (unknown, already used or expired). Start again from the agent.');
// the pages carry nothing of the request: no caching, no framing, no scripts
const PAGE_HEADERS = { 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'", 'Referrer-Policy': 'no-referrer' };

export function agentAuthHandlers(repo: ControlPlaneRepository, auth: AgentAuth): AgentAuthHandlers {
  const { flows, vault } = auth;
  return {
    authenticate: async ({ body }, ctx) => answer(200, await flows.authenticate({ tenantId: tenantOf(ctx), baseUrl: ctx.baseUrl }, body)),
    authCallback: async ({ path, query }) =>
      (await flows.callback(path.provider_id, query))
        ? { status: 200, headers: PAGE_HEADERS, text: CONNECTED }
        : { status: 400, headers: PAGE_HEADERS, text: REFUSED },
    waitForAuth: async ({ path, query }, ctx) => ({
      status: 200,
      body: await flows.wait(tenantOf(ctx), path.auth_id, (query.timeout ?? 300) * 1000, ctx.signal),
    }),
    listAuthTokens: async ({ query }, ctx) => ({ status: 200, body: vault ? await vault.list(tenantOf(ctx), query.user_id, query.provider_id) : [] }),
    deleteAuthTokens: async ({ query }, ctx) => {
      const count = vault ? await vault.deleteAll(tenantOf(ctx), query.user_id, query.provider_id) : 0;
      return { status: 200, body: { message: `Deleted ${count} token(s).`, provider_id: query.provider_id } };
    },
    patchAuthTokenMetadata: async ({ path, query, body }, ctx) =>
      vault ? answer(200, await vault.label(tenantOf(ctx), query.user_id, path.token_id, body.provider_account_label)) : tokenMissing(path.token_id),
    deleteAuthToken: async ({ path, query }, ctx) => {
      if (!vault) return tokenMissing(path.token_id);
      const deleted = await vault.deleteOne(tenantOf(ctx), query.user_id, path.token_id);
      return deleted.ok ? { status: 200, body: { message: 'Token deleted.' } } : failed(deleted.failure);
    },
    discoverMcpProvider: async ({ body }, ctx) => answer(200, await discoverMcpProvider(repo, auth.oauth, auth.providerRules, tenantOf(ctx), ctx.baseUrl, body)),
  };
  // without a key no token was ever kept (the start refuses a store holding some)
  function tokenMissing(id: string) {
    return failed(fail('not_found', `Token ${id} not found.`).failure);
  }
}
