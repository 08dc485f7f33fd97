// The registry's pieces an area adds before prom-client has loaded (the server loads it once it
// answers, off the start's path): a histogram given then observes at once, and what it observed
// is in the first scrape; a gauge given then is registered by the load.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from '../../../src/runtime/metrics/metrics.ts';

/** The value of the sample line `name{labels}` (or `name` alone) of a scrape. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('Metrics before prom-client loads', () => {
  it('a histogram made before load() keeps what it observes meanwhile, labelled or not', async () => {
    const metrics = new Metrics();
    const waited = metrics.histogram('test_wait_seconds', 'Waits.', [], [0.1, 1]);
    const took = metrics.histogram('test_took_seconds', 'Durations.', ['status'], [0.1, 1]);
    waited.observe(0.05);
    took.observe({ status: 'success' }, 0.5);
    took.observe({ status: 'error' }, 2);
    await metrics.load();
    waited.observe(0.5);
    const text = await metrics.registry.metrics();
    assert.equal(sample(text, 'test_wait_seconds_count'), 2, text);
    assert.equal(sample(text, 'test_wait_seconds_bucket{le="0.1"}'), 1, text);
    assert.equal(sample(text, 'test_took_seconds_count{status="success"}'), 1, text);
    assert.equal(sample(text, 'test_took_seconds_bucket{le="1",status="error"}'), 0, text);
    assert.equal(sample(text, 'test_took_seconds_count{status="error"}'), 1, text);
  });

  it('a gauge given before load() is read at the first scrape, which loads prom-client itself', async () => {
    const metrics = new Metrics();
    metrics.gauge('test_things', 'Things.', ['kind'], () => [{ labels: { kind: 'a' }, value: 3 }]);
    const { text } = await metrics.render();
    assert.equal(sample(text, 'test_things{kind="a"}'), 3, text);
  });
});
