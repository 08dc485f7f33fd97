// A graph that acts for its user at an OAuth provider: it asks agentplane's auth service for
// the user's token (agentplane-server/auth). The first time, the user must consent: the run
// stops with an interrupt carrying the URL to open ({type: 'auth_required', url, auth_id, …});
// resumed after the consent, it goes on with the token. Later runs get the stored token at once.
//
// Configurable: `user_id` (unless custom auth names the user), `auth_provider` (a provider_id
// of POST /v2/auth/providers, default `github`), `auth_scopes` (default `read:user`). The
// token itself never enters the thread's state: the reply shows its last four characters.
import { AIMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { authenticate } from 'agentplane-server/auth';

async function connect(_state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) {
  const configurable = config.configurable ?? {};
  const provider = typeof configurable.auth_provider === 'string' ? configurable.auth_provider : 'github';
  const scopes = Array.isArray(configurable.auth_scopes) ? (configurable.auth_scopes as string[]) : ['read:user'];
  const token = await authenticate({ provider, scopes });
  // a real agent calls the provider's API here with `Authorization: Bearer ${token}`
  return { messages: [new AIMessage(`Connected to ${provider} (token …${token.slice(-4)}).`)] };
}

export const connected = new StateGraph(MessagesAnnotation).addNode('connect', connect).addEdge(START, 'connect').addEdge('connect', END).compile();
