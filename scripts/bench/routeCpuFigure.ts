// What the `routes` phase measures (routeCpu.ts), apart from how: the routes it compares with
// the baseline and the figure each gives, read by the report (figures.ts) without the phase's code.
export const ROUTE_CPU_ROUTES = ['GET /v2/deployments/{id}', 'GET /ok', 'GET /threads/{id}', 'POST /threads'] as const;
export type RouteName = (typeof ROUTE_CPU_ROUTES)[number];

export interface RouteCpuFigure {
  route: RouteName;
  /** µs of server CPU a request, the median of every burst. */
  currentUs: number;
  baselineUs: number;
  /** baseline / current: the median of the rounds' ratios (above 1: the current tree is cheaper), and their range. */
  ratio: number;
  ratioMin: number;
  ratioMax: number;
  rounds: number;
  /**
   * Throughput, the second method (issue 67): req/s of each burst (its requests over its wall
   * time, the same bursts as the CPU figure), each tree's median, and current ÷ baseline as the
   * median of the rounds' ratios with their range (above 1: faster now). Absent in older reports.
   */
  currentRps?: number;
  baselineRps?: number;
  rpsRatio?: number;
  rpsRatioMin?: number;
  rpsRatioMax?: number;
  /**
   * The load generator (autocannon, in the bench's own process): its CPU µs a request on each
   * tree (medians of the bursts), and its share of one core over a burst (median and highest):
   * near 1, the client and not the server bounds the throughput. Absent in older reports.
   */
  currentClientUs?: number;
  baselineClientUs?: number;
  clientShare?: number;
  clientShareMax?: number;
}
