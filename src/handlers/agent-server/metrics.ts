// GET /metrics: the Prometheus text of the server's registry.
import type { Metrics } from '../../runtime/metrics/metrics.ts';
import type { AgentServerAreaHandlers } from './area.ts';

export function metricsHandlers(metrics: Metrics): Pick<AgentServerAreaHandlers, 'getMetrics'> {
  return {
    async getMetrics() {
      const { contentType, text } = await metrics.render();
      return { status: 200, headers: { 'Content-Type': contentType }, text };
    },
  };
}
