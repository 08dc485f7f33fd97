// The request metrics are counted outside prom-client and handed to it at scrape time
// (src/runtime/metrics/requestTally.ts). Oracle: prom-client's own Counter and Histogram fed the same
// requests; the two expositions must hold the same samples (label order aside).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { RequestTally } from '../../../src/runtime/metrics/requestTally.ts';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Each sample line as `name{labels sorted} value`, sorted: the same set whatever the label order. */
function samples(text: string, prefix: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => {
      const m = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(m, `a sample line: ${line}`);
      const labels = (m[2] ?? '')
        .split(/,(?=\w+=)/)
        .filter(Boolean)
        .sort()
        .join(',');
      return `${m[1]}{${labels}} ${Number(m[3])}`;
    })
    .sort();
}

const request = fc.record({
  operation: fc.constantFrom('getOk', 'getDeployment', 'createThread', 'unmatched'),
  method: fc.constantFrom('GET', 'POST', 'DELETE'),
  status: fc.constantFrom(200, 201, 404, 422, 500),
  // exactly on a bound, between bounds, above every bound
  seconds: fc.oneof(fc.constantFrom(...BOUNDS, 0, 31, 1e-7), fc.double({ min: 0, max: 40, noNaN: true })),
});

test('the request metrics expose what prom-client would for the same requests', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(request, { maxLength: 60 }), async (requests) => {
      const ours = new Registry();
      const tally = new RequestTally(BOUNDS);
      tally.registerCounter(ours, 'x_http_requests_total', 'help');
      tally.registerHistogram(ours, 'x_http_request_duration_seconds', 'help');
      const theirs = new Registry();
      const counter = new Counter({ name: 'x_http_requests_total', help: 'help', labelNames: ['operation', 'method', 'status'], registers: [theirs] });
      const histogram = new Histogram({
        name: 'x_http_request_duration_seconds',
        help: 'help',
        labelNames: ['operation', 'method'],
        buckets: BOUNDS,
        registers: [theirs],
      });
      for (const r of requests) {
        tally.record(r.operation, r.method, r.status, r.seconds);
        counter.inc({ operation: r.operation, method: r.method, status: String(r.status) });
        histogram.observe({ operation: r.operation, method: r.method }, r.seconds);
      }
      const [a, b] = [await ours.metrics(), await theirs.metrics()];
      assert.deepEqual(samples(a, 'x_http_requests_total'), samples(b, 'x_http_requests_total'));
      // sums are added in the same order on both sides: equal as printed
      assert.deepEqual(samples(a, 'x_http_request_duration_seconds'), samples(b, 'x_http_request_duration_seconds'));
      assert.match(a, /^# TYPE x_http_request_duration_seconds histogram$/m);
      assert.match(a, /^# TYPE x_http_requests_total counter$/m);
    }),
    { numRuns: 200 },
  );
});

test('a scrape reads the counts so far, and resetting the registry starts them again', async () => {
  const registry = new Registry();
  const tally = new RequestTally(BOUNDS);
  tally.registerCounter(registry, 'y_total', 'help');
  tally.registerHistogram(registry, 'y_seconds', 'help');
  tally.record('getOk', 'GET', 200, 0.002);
  assert.match(await registry.metrics(), /^y_total\{operation="getOk",method="GET",status="200"\} 1$/m);
  tally.record('getOk', 'GET', 200, 0.002);
  const text = await registry.metrics();
  assert.match(text, /^y_total\{operation="getOk",method="GET",status="200"\} 2$/m);
  assert.match(text, /^y_seconds_count\{operation="getOk",method="GET"\} 2$/m);
  assert.match(text, /^y_seconds_bucket\{operation="getOk",method="GET",le="0.001"\} 0$/m);
  assert.match(text, /^y_seconds_bucket\{operation="getOk",method="GET",le="0.0025"\} 2$/m);
  registry.resetMetrics();
  assert.doesNotMatch(await registry.metrics(), /operation="getOk"/);
});
