// agentplane-server/auth: a graph gets an OAuth token for the current run's user, in process
// (the equivalent of @langchain/auth's authenticate(), without an API key or a network hop).
//
// @example
//   import { authenticate } from 'agentplane-server/auth';
//   const token = await authenticate({ provider: 'github', scopes: ['repo'] });
//
// The user is the run's custom-auth identity (`langgraph_auth_user_id`), else the
// `user_id` of its configurable; a run without an owner (agent-server auth off: one person at
// this server) that names none acts for the local user, `local`. A stored token is returned at once (refreshed if it was about
// to expire). Otherwise the user must consent: the run stops with a LangGraph interrupt()
// whose value is `{type: 'auth_required', provider, scopes, url, auth_id}` (useStream and
// agent-chat-ui show it); once the user has been to `url`, resume the run (any resume value)
// and the call returns the token. Resumed before the consent, it interrupts again with a new URL.
//
// A token the resource server refuses (401) is asked for again with `refusedToken`: the stored
// token is refreshed at once with its refresh token (its expiry has not come by the clock),
// and when that fails the user is asked to consent again, as above.
//
// @example
//   let token = await authenticate({ provider: 'github', scopes: ['repo'] });
//   let answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
//   if (answer.status === 401) {
//     token = await authenticate({ provider: 'github', scopes: ['repo'], refusedToken: token });
//     answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
//   }
import { getConfig, interrupt } from '@langchain/langgraph';
import { agentAuthCall } from '../shared/agentAuthGlobal.ts';

export interface AuthenticateOptions {
  /** The provider's `provider_id` (POST /v2/auth/providers). */
  provider: string;
  scopes: string[];
  /** The user; by default the run's custom-auth identity, else `configurable.user_id`, else (auth off) the local user. */
  userId?: string;
  /**
   * The token a resource server just refused (401): a fresh one is returned. Safe to pass again
   * when the node re-runs on resume: a token already replaced is not refreshed twice.
   */
  refusedToken?: string;
}

/** What the run's interrupt carries while the user has not consented. */
export interface AuthRequired {
  type: 'auth_required';
  provider: string;
  scopes: string[];
  url: string;
  auth_id: string;
}

export async function authenticate(options: AuthenticateOptions): Promise<string> {
  const call = agentAuthCall();
  if (!call) throw new Error('authenticate() runs inside a graph served by agentplane, whose control plane keeps the tokens');
  const configurable = (getConfig()?.configurable ?? {}) as Record<string, unknown>;
  const userId = options.userId ?? configurable.langgraph_auth_user_id ?? configurable.user_id;
  const runId = configurable.run_id;
  if (userId !== undefined && (typeof userId !== 'string' || !userId))
    throw new Error('authenticate(): the user (configurable.user_id) must be a non-empty string');
  if (typeof runId !== 'string') throw new Error('authenticate() is called from a node of a run');
  // each resume re-runs the node: every round asks again, and a round still without a token
  // stops at the next interrupt (the earlier ones return their resume values)
  for (;;) {
    const answer = await call({
      runId,
      userId: userId as string | undefined,
      provider: options.provider,
      scopes: options.scopes,
      refusedToken: options.refusedToken,
    });
    if (answer.status === 'completed') return answer.token;
    interrupt({ type: 'auth_required', provider: options.provider, scopes: options.scopes, url: answer.url, auth_id: answer.auth_id } satisfies AuthRequired);
  }
}
