// The agent server's metrics: runs by status and the queue (read from the store when
// scraped), and how long runs waited and took (observed as each run ends).
import { RUN_STATUSES } from '../../../../generated/agent-server/types.gen.ts';
import type { MetricsRegistry } from '../../ports/metrics.ts';
import type { Store } from '../../ports/store.ts';
import type { RunEnded } from './runEngine.ts';

export interface RunMetricsSources {
  store: Store;
  /** Runs executing now, and how many may execute at once. */
  busyWorkers(): number;
  workerLimit: number;
}

/** Registers the gauges; returns the listener that records each ended run. */
export function registerRunMetrics(metrics: MetricsRegistry, sources: RunMetricsSources): (ended: RunEnded) => void {
  const runs = sources.store.collection<{ status: string }>('runs', { indexes: ['thread_id', 'status'] });
  metrics.gauge('agentplane_runs', 'Runs by status.', ['status'], async () =>
    Promise.all(RUN_STATUSES.map(async (status) => ({ labels: { status }, value: await runs.count({ where: { status } }) }))),
  );
  metrics.gauge('agentplane_run_queue_depth', 'Runs waiting to start.', [], async () => [{ value: await runs.count({ where: { status: 'pending' } }) }]);
  metrics.gauge('agentplane_run_workers_busy', 'Runs executing now.', [], () => [{ value: sources.busyWorkers() }]);
  metrics.gauge('agentplane_run_workers', 'How many runs may execute at once.', [], () => [{ value: sources.workerLimit }]);
  const waited = metrics.histogram(
    'agentplane_run_queue_wait_seconds',
    'Time from a run’s creation to the start of its execution.',
    [],
    [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
  );
  const took = metrics.histogram(
    'agentplane_run_duration_seconds',
    'Execution time of runs, by final status.',
    ['status'],
    [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
  );
  return (ended) => {
    waited.observe(ended.queuedMs / 1000);
    took.observe({ status: ended.run.status }, (ended.endedAt.getTime() - ended.startedAt.getTime()) / 1000);
  };
}
