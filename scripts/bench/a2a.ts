// A2A message/send latency: each call runs the echo graph to completion on a new task.
import { randomUUID } from 'node:crypto';
import { expectStatus, type Agentplane } from './agentplane.ts';
import { load, type LoadResult } from './load.ts';

export const A2A_CONNECTIONS = 4;

export async function echoAssistantId(ap: Agentplane, graph: string): Promise<string> {
  const res = await ap.api('/assistants/search', { json: { graph_id: graph, limit: 1 } });
  expectStatus('POST /assistants/search', res, 200);
  const id = res.body?.[0]?.assistant_id;
  if (!id) throw new Error(`no assistant for graph ${graph}: ${res.text.slice(0, 200)}`);
  return id;
}

export async function measureA2A(ap: Agentplane, assistantId: string, seconds: number): Promise<LoadResult> {
  let n = 0;
  const makeBody = () =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: (n += 1),
      method: 'message/send',
      params: { message: { role: 'user', kind: 'message', messageId: randomUUID(), parts: [{ kind: 'text', text: `hello ${n}` }] } },
    });
  // JSON-RPC errors come back as HTTP 200: make sure the method works before timing it
  const probe = await ap.api(`/a2a/${assistantId}`, { json: JSON.parse(makeBody()) });
  expectStatus('A2A message/send', probe, 200);
  if (!probe.body?.result) throw new Error(`A2A message/send answered without a result: ${probe.text.slice(0, 300)}`);
  const target = {
    url: `${ap.url}/a2a/${assistantId}`,
    method: 'POST',
    headers: { ...ap.headers, 'content-type': 'application/json', accept: 'application/json' },
    makeBody,
    connections: A2A_CONNECTIONS,
  };
  await load({ ...target, duration: 1 });
  return load({ ...target, duration: seconds });
}
