// Scenarios about addresses a run or a page is handed (issue 52): a run's webhook that is a
// path reaches the project's own route, and generative UI tags name the host the request did.
import http from 'node:http';
import { bearer, USER, type Side } from './harness.ts';
import type { Scenario } from './scenarios.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });

/** POST /ui/{agent} with these headers (fetch cannot set Host): status, media type and text. */
function uiTags(side: Side, agent: string, headers: Record<string, string>) {
  return new Promise<{ status: number; type: string | undefined; text: string }>((resolve, reject) => {
    const req = http.request(
      new URL(`/ui/${agent}`, side.url),
      { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(USER), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type']?.split(';')[0], text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ name: 'greeting' }));
  });
}

export const addressScenarios: Scenario[] = [
  {
    name: 'webhook to a path of the project',
    covers: 'issue 52 point 6: webhook "/custom/webhook" is accepted and delivered to the project\'s http.app',
    async run(side) {
      const client = side.client();
      const thread = (await client.threads.create()).thread_id;
      const run = await client.runs.create(thread, 'chat', { input: say('hook me'), webhook: '/custom/webhook' });
      await client.runs.join(thread, run.run_id);
      let delivered: Record<string, any>[] = [];
      for (let i = 0; i < 100 && !delivered.length; i++) {
        delivered = (await side.http('GET', `/custom/webhooks?run_id=${run.run_id}`)).body as Record<string, any>[];
        if (!delivered.length) await new Promise((r) => setTimeout(r, 50));
      }
      return {
        deliveries: delivered.length,
        delivered: delivered.map((d) => ({
          run_id: d.run_id === run.run_id,
          thread_id: d.thread_id === thread,
          status: d.status,
          // upstream posts LangChain's serialised messages ({lc, kwargs}), agentplane message dicts: the text is compared
          messages: (d.values?.messages ?? []).map((m: { content?: unknown; kwargs?: { content?: unknown } }) => m.content ?? m.kwargs?.content),
          times: [d.run_started_at, d.run_ended_at, d.webhook_sent_at].map((t) => typeof t),
        })),
      };
    },
  },
  {
    name: 'generative ui tags name the request host',
    covers: "issue 52 point 7: POST /ui/{agent} builds the script and stylesheet URLs from the request's Host",
    async run(side) {
      const tags = async (headers: Record<string, string>) => {
        const { status, type, text } = await uiTags(side, 'chat', headers);
        // the bundle's file names carry no host; the URLs before them do
        return { status, type, srcs: [...text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]) };
      };
      return {
        remote: await tags({ host: 'agents.example:8443' }),
        loopback: await tags({ host: 'localhost:2024' }),
        forwarded: await tags({ host: 'agents.example', 'x-forwarded-host': 'proxy.example', 'x-forwarded-proto': 'https' }),
      };
    },
  },
];
