// The authorization-code flow of the auth service: `authenticate` hands out a stored token or
// starts a flow, the provider's redirect (`callback`) completes it once, `wait` reports it.
// A flow is single-use: the callback takes it (pending → exchanging) in one atomic update
// under a claim of its own, so a replayed or concurrent callback finds it taken; forged,
// replayed, expired and other providers' callbacks are all refused alike. Completion is
// announced on the coordination channel, so a waiter on another replica wakes too.
import type { AuthenticateRequest, AuthenticateResponse, AuthWaitResponse } from '../../../../generated/control-plane/types.gen.ts';
import { randomUUID } from 'node:crypto';
import type { Coordination } from '../../ports/coordination.ts';
import type { Logger } from '../../ports/logger.ts';
import { OAuthFailure, type OAuthClient } from '../../ports/oauthClient.ts';
import { timestamp } from '../../clock.ts';
import { fail, ok, type Outcome } from '../../outcome.ts';
import { providerNotFound } from '../failures.ts';
import type { ProviderRecord } from '../records.ts';
import {
  authorizationUrl,
  callbackUrl,
  EXCHANGE_CUT_ERROR,
  exchangeCut,
  FLOW_TTL_MS,
  isPast,
  newPkce,
  newState,
  normalScopes,
  readState,
  secretMatches,
} from './flowRules.ts';
import type { AuthFlowRecord, AuthFlowsRepository } from '../../ports/authFlowsRepository.ts';
import type { TokenCipher } from './tokenCipher.ts';
import { endpointsOf, TokenVault } from './tokenVault.ts';

/** Wake-ups of waiters: the auth id of a flow that ended. */
export const FLOW_CHANNEL = 'agentplane_auth_flows';
/** A waiter looks again this often even without a wake-up (one lost in a reconnect). */
const RECHECK_MS = 1000;

export const TOKEN_KEY_MISSING = 'The auth service keeps tokens encrypted and no key is set (AGENTPLANE_TOKEN_KEY).';

export interface FlowDeps {
  flows: AuthFlowsRepository;
  cipher: TokenCipher | null;
  oauth: OAuthClient;
  coordination: Pick<Coordination, 'notify' | 'listen'>;
  vault: TokenVault | null;
  /** A provider of a tenant by its caller-chosen id, and a provider by record id. */
  providerOf: (tenantId: string, providerId: string) => Promise<ProviderRecord | undefined>;
  log: Logger;
}

/** Who asks: the tenant, the user within it, and this server's public URL (for the redirect). */
export interface Asker {
  tenantId: string;
  baseUrl: string;
}

export type CallbackQuery = { code?: string; state?: string; error?: string; error_description?: string };

export class AuthFlows {
  constructor(private readonly deps: FlowDeps) {}

  async authenticate(asker: Asker, body: AuthenticateRequest): Promise<Outcome<AuthenticateResponse, 'not_found' | 'unsupported'>> {
    const { cipher, vault } = this.deps;
    if (!cipher || !vault) return fail('unsupported', TOKEN_KEY_MISSING);
    const provider = await this.deps.providerOf(asker.tenantId, body.provider);
    if (!provider) return providerNotFound(body.provider);
    const scopes = normalScopes(body.scopes);
    const answer = { user_id: body.user_id, metadata: {} };
    if (!body.force_new) {
      const token = await vault.usable(asker.tenantId, body.user_id, provider, scopes, { tokenId: body.token_id, refused: body.refused_token });
      if (token) return ok({ status: 'completed', url: null, auth_id: null, token, ...answer });
    }
    const { authId, state, stateHash } = newState();
    const pkce = provider.uses_pkce ? newPkce() : null;
    const method = provider.code_challenge_method === 'plain' ? 'plain' : 'S256';
    const redirectUri = callbackUrl(asker.baseUrl, provider.provider_id);
    const now = Date.now();
    const flow: AuthFlowRecord = {
      id: authId,
      tenant_id: asker.tenantId,
      user_id: body.user_id,
      provider_id: provider.provider_id,
      provider_record_id: provider.id,
      scopes,
      state_hash: stateHash,
      verifier: pkce ? cipher.seal(pkce.verifier, authId) : null,
      redirect_uri: redirectUri,
      status: 'pending',
      claim: null,
      token_id: null,
      error: null,
      expires_at: new Date(now + FLOW_TTL_MS).toISOString(),
      created_at: timestamp(),
      updated_at: timestamp(),
    };
    await this.deps.flows.start(flow);
    await this.sweep(asker.tenantId);
    const url = authorizationUrl({
      // a configured provider's URL is absolute; the development stand-in's is a path on this server
      authUrl: provider.auth_url.startsWith('/') ? new URL(provider.auth_url, asker.baseUrl).href : provider.auth_url,
      clientId: provider.client_id,
      redirectUri,
      scopes,
      state,
      pkce: pkce ? { ...pkce, method } : null,
    });
    return ok({ status: 'pending', url, auth_id: authId, token: null, ...answer });
  }

  /** True when the flow is completed (the token stored); false for anything refused, alike. */
  async callback(providerId: string, query: CallbackQuery): Promise<boolean> {
    const { cipher, vault } = this.deps;
    const named = readState(query.state);
    if (!named || !cipher || !vault) return false;
    const claim = randomUUID();
    const taken = await this.deps.flows.change(named.authId, (flow) =>
      flow.status === 'pending' && !isPast(flow.expires_at) && flow.provider_id === providerId && secretMatches(named.secret, flow.state_hash)
        ? { ...flow, status: 'exchanging', claim, updated_at: timestamp() }
        : undefined,
    );
    if (!taken || taken.claim !== claim) return false;
    const provider = await this.providerRecord(taken);
    try {
      if (query.error || !query.code)
        throw new OAuthFailure(`the provider answered ${query.error ?? 'no code'}${query.error_description ? `: ${query.error_description}` : ''}`);
      if (!provider) throw new OAuthFailure('the provider was deleted during the flow');
      const verifier = taken.verifier ? cipher.open(taken.verifier, taken.id) : null;
      const issued = await this.deps.oauth.exchangeCode(endpointsOf(provider, cipher), query.code, taken.redirect_uri, verifier);
      const token = await vault.keep(taken, issued);
      await this.finish(taken.id, { status: 'completed', token_id: token.id, verifier: null });
      return true;
    } catch (error) {
      if (!(error instanceof OAuthFailure)) throw error;
      this.deps.log.warn('an auth flow failed', { auth_id: taken.id, provider_id: providerId, error: error.message });
      await this.finish(taken.id, { status: 'failed', error: error.message, verifier: null });
      return false;
    }
  }

  /** Waits until the flow ends or `timeoutMs` passes; another tenant's flow is not found, like a missing one. */
  async wait(tenantId: string, authId: string, timeoutMs: number, signal?: AbortSignal): Promise<AuthWaitResponse> {
    const deadline = Date.now() + timeoutMs;
    let wake: () => void = () => {};
    const stop = this.deps.coordination.listen(FLOW_CHANNEL, (payload) => {
      if (payload === authId || payload === '') wake();
    });
    try {
      for (;;) {
        const flow = await this.deps.flows.get(authId);
        if (!flow || flow.tenant_id !== tenantId || isPast(flow.expires_at)) return { status: 'not_found', token: null };
        if (flow.status === 'completed' && flow.token_id) {
          const token = await this.deps.vault?.accessToken(flow.token_id);
          return token ? { status: 'completed', token } : { status: 'not_found', token: null };
        }
        if (flow.status === 'failed') return { status: 'failed', token: null, error: flow.error };
        if (exchangeCut(flow)) {
          await this.failCut(flow.id, () => true);
          continue;
        }
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted) return { status: 'timeout', token: null };
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(left, RECHECK_MS));
          signal?.addEventListener('abort', done, { once: true });
          wake = done;
          function done() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          }
        });
      }
    } finally {
      stop();
    }
  }

  /**
   * Fails the flows whose code exchange was cut by a stop: at a start, every flow `exchanging`
   * when the store has no other server (`soleOwner`: nothing else can be exchanging), else
   * those past the exchange's time limit (another replica may be in the middle of one).
   */
  async failCutExchanges(soleOwner: boolean): Promise<number> {
    const now = Date.now();
    const cut = (await this.deps.flows.exchanging()).filter((f) => soleOwner || exchangeCut(f, now));
    for (const flow of cut) await this.failCut(flow.id, (f) => soleOwner || exchangeCut(f, now));
    if (cut.length > 0) this.deps.log.warn('auth flows cut during their code exchange failed', { count: cut.length });
    return cut.length;
  }

  /** Fails a flow still `exchanging` under the same claim (one that moved on meanwhile is left alone). */
  private async failCut(authId: string, still: (flow: AuthFlowRecord) => boolean): Promise<void> {
    let claim: string | null | undefined;
    const failed = await this.deps.flows.change(authId, (flow) => {
      if (flow.status !== 'exchanging' || !still(flow)) return undefined;
      claim = flow.claim;
      return { ...flow, status: 'failed', error: EXCHANGE_CUT_ERROR, verifier: null, updated_at: timestamp() };
    });
    if (failed && claim !== undefined) await this.deps.coordination.notify(FLOW_CHANNEL, authId);
  }

  /** A provider's flows, gone with it. */
  async forgetProvider(providerRecordId: string): Promise<void> {
    const flows = await this.deps.flows.ofProvider(providerRecordId);
    for (const flow of flows) await this.deps.flows.delete(flow.id);
  }

  private async providerRecord(flow: AuthFlowRecord): Promise<ProviderRecord | undefined> {
    const provider = await this.deps.providerOf(flow.tenant_id, flow.provider_id);
    return provider?.id === flow.provider_record_id ? provider : undefined;
  }

  private async finish(authId: string, change: Partial<AuthFlowRecord>): Promise<void> {
    await this.deps.flows.change(authId, (flow) => ({ ...flow, ...change, updated_at: timestamp() }));
    await this.deps.coordination.notify(FLOW_CHANNEL, authId);
  }

  /** Forgets the tenant's expired flows (their URLs already fail): the store keeps no flow past its life. */
  private async sweep(tenantId: string): Promise<void> {
    const now = Date.now();
    const expired = (await this.deps.flows.ofTenant(tenantId)).filter((f) => isPast(f.expires_at, now));
    for (const flow of expired) await this.deps.flows.delete(flow.id);
  }
}
