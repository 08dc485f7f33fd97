// GET /metrics parsed by a Prometheus text parser, with the counters moving as requests and
// runs happen; a run's webhook reaching a local receiver after one failed attempt; graphs
// reading and writing the long-term memory store through config.store. (A webhook that is a
// path to the project's own route is in test/runtime/project/customRoutes.test.ts: the server calls its
// own port.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@langchain/langgraph-sdk';
// @ts-expect-error the package ships no types
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { inProcessApp, type InProcessApp } from '../../support/server.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

type Family = { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }[] };
const sample = (families: Family[], name: string, labels: Record<string, string> = {}) =>
  Number(families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? NaN);
const say = (content: string) => ({ messages: [{ role: 'user', content }] });

describe('metrics, webhooks and the memory store in graphs', () => {
  let server: InProcessApp;
  let client: Client;
  const received: { attempt: number; body: Record<string, any> }[] = [];
  let receiver: http.Server;
  let receiverUrl = '';
  before(async () => {
    let attempts = 0;
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        attempts += 1;
        received.push({ attempt: attempts, body: JSON.parse(body) });
        res.writeHead(attempts === 1 ? 503 : 200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    server = await inProcessApp({
      project: {
        graphs: {
          ...testProject.graphs,
          rememberer: './test/fixtures/agent-server/memory.ts:rememberer',
          recall: './test/fixtures/agent-server/memory.ts:plainRecall',
        },
        webhooks: { retry_base_ms: 50, url: { allowed_domains: ['127.0.0.1'], allowed_networks: ['127.0.0.1/32'] } },
      },
    });
    client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, fetch: server.fetch } });
  });
  after(async () => {
    await server.close();
    receiver.close();
  });

  it('serves Prometheus text whose counters move with requests and runs', async () => {
    const scrapeText = async () => (await server.fetch(`${server.url}/metrics`)).text();
    // the parser reads counters and gauges; it drops the labels of histograms, which are read
    // from their _count series in the text
    const parse = (text: string) => parsePrometheusTextFormat(text) as Family[];
    const histogramCount = (text: string, name: string, labels: string) =>
      Number(new RegExp(`^${name}_count\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    const created = (f: Family[]) => sample(f, 'agentplane_http_requests_total', { operation: 'createThread', status: '200' });
    const waited = (f: Family[]) => sample(f, 'agentplane_http_requests_total', { operation: 'waitRun', status: '200' });
    const before = parse(await scrapeText());
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'echo', { input: say('count me') });
    // a request is counted once its reply has ended, which the client may see a moment earlier
    let text = await scrapeText();
    for (let i = 0; i < 50 && !(waited(parse(text)) >= 1); i++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await scrapeText();
    }
    const afterRun = parse(text);
    assert.equal(Number.isNaN(created(before)) ? 0 : created(before), 0);
    assert.equal(created(afterRun), 1);
    assert.equal(waited(afterRun), 1);
    assert.ok(sample(afterRun, 'agentplane_runs', { status: 'success' }) >= 1);
    assert.equal(sample(afterRun, 'agentplane_run_queue_depth'), 0);
    // AGENTPLANE_MAX_CONCURRENT_RUNS unset: upstream's default of ten runs at once (`--n-jobs-per-worker`)
    assert.equal(sample(afterRun, 'agentplane_run_workers'), 10);
    assert.ok(sample(afterRun, 'agentplane_store_records', { collection: 'threads' }) >= 1);
    assert.equal(sample(afterRun, 'agentplane_deployments', { status: 'READY' }), 0);
    assert.equal(afterRun.find((f) => f.name === 'agentplane_run_duration_seconds')?.type, 'HISTOGRAM');
    assert.ok(histogramCount(text, 'agentplane_run_duration_seconds', 'status="success"') >= 1);
    assert.ok(histogramCount(text, 'agentplane_http_request_duration_seconds', 'operation="waitRun",method="POST"') >= 1);
    assert.ok(afterRun.some((f) => f.name === 'process_cpu_user_seconds_total'));
    const res = await server.fetch(`${server.url}/metrics`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    await res.body?.cancel();
  });

  it('posts the finished run to its webhook, retrying after a failed attempt, without delaying the run', async () => {
    const thread = await client.threads.create();
    const result = await client.runs.wait(thread.thread_id, 'echo', { input: say('notify me'), webhook: receiverUrl });
    assert.deepEqual(
      (result as { messages: { content: string }[] }).messages.map((m) => m.content),
      ['notify me', 'notify me'],
    );
    for (let i = 0; i < 100 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(received.length, 2, 'one failed attempt, then one delivered');
    const { body } = received[1];
    assert.equal(body.thread_id, thread.thread_id);
    assert.equal(body.status, 'success');
    assert.equal(body.values.messages.at(-1).content, 'notify me');
    assert.ok(body.run_started_at && body.run_ended_at && body.webhook_sent_at);
    assert.equal(received[0].body.run_id, body.run_id);
  });

  it('does not call a webhook whose host the project does not allow', async () => {
    const before = received.length;
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'echo', { input: say('nope'), webhook: 'http://localhost:9/hook' });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(received.length, before);
  });

  it('gives graphs the same memory store as the /store API', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'rememberer', { input: say('I like green'), config: { configurable: { user_id: 'alice' } } });
    const last = await client.runs.wait(thread.thread_id, 'rememberer', { input: say('I live in Lisbon'), config: { configurable: { user_id: 'alice' } } });
    assert.match((last as { messages: { content: string }[] }).messages.at(-1)!.content, /I remember 2 things about alice/);
    const { items } = await client.store.searchItems(['memories', 'alice']);
    assert.deepEqual(items.map((i) => i.value.text).sort(), ['I like green', 'I live in Lisbon']);

    await client.store.putItem(['memories', 'bob'], 'x', { text: 'written through the API' });
    const other = await client.threads.create();
    const recalled = await client.runs.wait(other.thread_id, 'recall', { input: say('how many?') });
    assert.match((recalled as { messages: { content: string }[] }).messages.at(-1)!.content, /found 3/);
  });
});
