// A graph that acts for its user at an OAuth provider: it asks agentplane's auth service for
// the user's token (agentplane-server/auth). The first time, the user must consent: the run
// stops with an interrupt carrying the URL to open ({type: 'auth_required', url, auth_id, …});
// resumed after the consent, it goes on with the token. Later runs get the stored token at once.
//
// Out of the box (`npm start`, no settings, offline) no provider `github` is configured, and
// the server's development provider stands in for it: the consent page is on this server and
// says so (docs/control-plane.md, "The development provider"); register the real one to use it.
//
// Configurable: `user_id` (unless custom auth names the user; with auth off, by default the
// local user), `auth_provider` (a provider_id of POST /v2/auth/providers, default `github`),
// `auth_scopes` (default `read:user`),
// `resource_url` (optional: an API the token is sent to; a 401 there is retried once with a
// fresh token, `refusedToken`). The token itself never enters the thread's state: the reply
// shows its last four characters.
import { AIMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { authenticate } from 'agentplane-server/auth';

async function connect(_state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) {
  const configurable = config.configurable ?? {};
  const provider = typeof configurable.auth_provider === 'string' ? configurable.auth_provider : 'github';
  const scopes = Array.isArray(configurable.auth_scopes) ? (configurable.auth_scopes as string[]) : ['read:user'];
  let token = await authenticate({ provider, scopes });
  const resource = typeof configurable.resource_url === 'string' ? configurable.resource_url : null;
  if (!resource) return { messages: [new AIMessage(`Connected to ${provider} (token …${token.slice(-4)}).`)] };
  let answer = await callResource(resource, token);
  if (answer.status === 401) {
    // refused before its expiry (revoked, the provider's keys changed): a fresh one, once
    token = await authenticate({ provider, scopes, refusedToken: token });
    answer = await callResource(resource, token);
  }
  return { messages: [new AIMessage(`Connected to ${provider} (token …${token.slice(-4)}); ${resource} answered ${answer.status}.`)] };
}

async function callResource(url: string, token: string): Promise<Response> {
  const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  await answer.body?.cancel();
  return answer;
}

export const connected = new StateGraph(MessagesAnnotation).addNode('connect', connect).addEdge(START, 'connect').addEdge('connect', END).compile();
