// The event loop's delay gauges read the lag they name: the 100 ms interval they are sampled at
// is not counted (Node's histogram records the interval plus the lag, and prom-client reports it
// as it is, so an idle server read 0.1 s of lag). A loop held busy still shows its lag.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Metrics } from '../../../src/runtime/metrics/metrics.ts';

/** The value of each nodejs_eventloop_lag_* line of a scrape, by name. */
async function lagFigures(metrics: Metrics): Promise<Record<string, number>> {
  const text = await metrics.registry.metrics();
  const figures: Record<string, number> = {};
  for (const [, name, value] of text.matchAll(/^(nodejs_eventloop_lag_(?:\w+_)?seconds) (\S+)$/gm)) figures[name!] = Number(value);
  return figures;
}

describe('event loop delay metrics', () => {
  it('read near 0 on an idle loop, not the 100 ms sampling interval', async () => {
    const metrics = new Metrics();
    await metrics.load();
    await lagFigures(metrics); // starts a period
    await sleep(650);
    const idle = await lagFigures(metrics);
    for (const figure of ['min', 'mean', 'p50', 'p90']) {
      const value = idle[`nodejs_eventloop_lag_${figure}_seconds`];
      assert.ok(value !== undefined && value >= 0 && value < 0.05, `${figure}: ${value} s on an idle loop`);
    }
    assert.ok(idle.nodejs_eventloop_lag_seconds !== undefined, 'the setImmediate lag is still reported');
  });

  it('show a loop held busy for 300 ms', async () => {
    const metrics = new Metrics();
    await metrics.load();
    await lagFigures(metrics);
    await sleep(150);
    const until = Date.now() + 300;
    while (Date.now() < until) {
      // the loop is held
    }
    await sleep(150);
    const busy = await lagFigures(metrics);
    const max = busy.nodejs_eventloop_lag_max_seconds!;
    assert.ok(max >= 0.15 && max < 0.45, `max ${max} s for a 300 ms hold`);
  });
});
