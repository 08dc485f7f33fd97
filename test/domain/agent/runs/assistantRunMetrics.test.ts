// The figures of GET /assistants/{id}/metrics made from a backend's summary: every status
// counted (0 when absent), errors are `error` and `timeout` among finished runs, and the
// percentiles interpolate like PostgreSQL's percentile_cont so both backends agree.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assistantRunMetrics, percentile, summarizeRuns } from '../../../../src/domain/agent/runs/assistantRunMetrics.ts';

describe('percentile', () => {
  it('is null for no values, the value for one, and interpolates linearly between ranks', () => {
    assert.equal(percentile([], 0.5), null);
    assert.equal(percentile([7], 0.95), 7);
    assert.equal(percentile([1, 2, 3, 4], 0.5), 2.5);
    assert.equal(percentile([10, 20, 30, 40, 50], 0.5), 30);
    assert.ok(Math.abs(percentile([0, 100], 0.95)! - 95) < 1e-9);
    assert.equal(percentile([3, 5], 1), 5);
    assert.equal(percentile([3, 5], 0), 3);
  });
});

describe('summarizeRuns', () => {
  it('counts by status and takes durations of finished runs only', () => {
    const created = '2026-01-01T00:00:00.000Z';
    const after = (ms: number) => new Date(Date.parse(created) + ms).toISOString();
    const summary = summarizeRuns([
      { status: 'success', created_at: created, updated_at: after(300) },
      { status: 'interrupted', created_at: created, updated_at: after(100) },
      { status: 'timeout', created_at: created, updated_at: after(200) },
      // in flight: counted, but no duration yet (its updated_at moves as it runs)
      { status: 'running', created_at: created, updated_at: after(5_000) },
      { status: 'pending', created_at: created, updated_at: created },
    ]);
    assert.deepEqual(summary, { byStatus: { success: 1, interrupted: 1, timeout: 1, running: 1, pending: 1 }, p50Ms: 200, p95Ms: 290 });
  });

  it('only pending runs: counted, no durations', () => {
    assert.deepEqual(summarizeRuns([{ status: 'pending', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }]), {
      byStatus: { pending: 1 },
      p50Ms: null,
      p95Ms: null,
    });
  });
});

describe('assistantRunMetrics', () => {
  it('an empty window: zero counts for every status, no error rate, no durations', () => {
    assert.deepEqual(assistantRunMetrics('a1', 60, { byStatus: {}, p50Ms: null, p95Ms: null }), {
      assistant_id: 'a1',
      window_s: 60,
      run_count: 0,
      finished_count: 0,
      error_count: 0,
      error_rate: null,
      p50_ms: null,
      p95_ms: null,
      by_status: { pending: 0, running: 0, success: 0, error: 0, timeout: 0, interrupted: 0 },
    });
  });

  it('errors and timeouts are failures among finished runs; runs in flight count in run_count only', () => {
    const metrics = assistantRunMetrics('a1', 3600, {
      byStatus: { success: 5, error: 1, timeout: 1, interrupted: 1, pending: 2, running: 1 },
      p50Ms: 12,
      p95Ms: 40,
    });
    assert.equal(metrics.run_count, 11);
    assert.equal(metrics.finished_count, 8);
    assert.equal(metrics.error_count, 2);
    assert.equal(metrics.error_rate, 0.25);
    assert.equal(metrics.p50_ms, 12);
    assert.equal(metrics.p95_ms, 40);
  });

  it('only pending runs: counted, and no error rate while none has finished', () => {
    const metrics = assistantRunMetrics('a1', 3600, { byStatus: { pending: 3 }, p50Ms: null, p95Ms: null });
    assert.equal(metrics.run_count, 3);
    assert.equal(metrics.finished_count, 0);
    assert.equal(metrics.error_rate, null);
  });
});
