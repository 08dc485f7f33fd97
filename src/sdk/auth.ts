// agentplane-server/auth: a graph gets an OAuth token for the current run's user, in process
// (the equivalent of @langchain/auth's authenticate(), without an API key or a network hop).
//
// @example
//   import { authenticate } from 'agentplane-server/auth';
//   const token = await authenticate({ provider: 'github', scopes: ['repo'] });
//
// The user is the run's custom-auth identity (`langgraph_auth_user_id`), else the
// `user_id` of its configurable. A stored token is returned at once (refreshed if it was about
// to expire). Otherwise the user must consent: the run stops with a LangGraph interrupt()
// whose value is `{type: 'auth_required', provider, scopes, url, auth_id}` (useStream and
// agent-chat-ui show it); once the user has been to `url`, resume the run (any resume value)
// and the call returns the token. Resumed before the consent, it interrupts again with a new URL.
import { getConfig, interrupt } from '@langchain/langgraph';
import { agentAuthCall } from '../shared/agentAuthGlobal.ts';

export interface AuthenticateOptions {
  /** The provider's `provider_id` (POST /v2/auth/providers). */
  provider: string;
  scopes: string[];
  /** The user; by default the run's custom-auth identity, else `configurable.user_id`. */
  userId?: string;
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
  if (typeof userId !== 'string' || !userId) throw new Error('authenticate() needs the user: custom auth, configurable.user_id, or options.userId');
  if (typeof runId !== 'string') throw new Error('authenticate() is called from a node of a run');
  // each resume re-runs the node: every round asks again, and a round still without a token
  // stops at the next interrupt (the earlier ones return their resume values)
  for (;;) {
    const answer = await call({ runId, userId, provider: options.provider, scopes: options.scopes });
    if (answer.status === 'completed') return answer.token;
    interrupt({ type: 'auth_required', provider: options.provider, scopes: options.scopes, url: answer.url, auth_id: answer.auth_id } satisfies AuthRequired);
  }
}
