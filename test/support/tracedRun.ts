// A finished run of the `traced` test graph (test/fixtures/graphs/traced.ts), or of an assistant
// of it, on a new thread:
// a message that says "fail" sends it through its failing node.
import type { TestServer } from './server.ts';

export async function finishedTracedRun(
  server: Pick<TestServer, 'api'>,
  content: string,
  assistantId = 'traced',
): Promise<{ thread_id: string; run_id: string }> {
  const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
  const run = (await (
    await server.api(`/threads/${thread.thread_id}/runs`, {
      method: 'POST',
      json: { assistant_id: assistantId, input: { messages: [{ role: 'user', content }] } },
    })
  ).json()) as { run_id: string };
  await server.api(`/threads/${thread.thread_id}/runs/${run.run_id}/join`);
  return { thread_id: thread.thread_id, run_id: run.run_id };
}
