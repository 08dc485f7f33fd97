// The names under which scripts/run-tests.ts hands its PostgreSQL to the test processes, apart
// from test/support/postgres.ts: the runner reads them on every start, and postgres.ts (pg and
// the store's modules, ~0.2 CPU-s through tsx) only when a file of the run uses PostgreSQL.

/** The shared server's admin URL, as scripts/run-tests.ts hands it to the test processes. */
export const SHARED_POSTGRES_ENV = 'AGENTPLANE_TEST_POSTGRES_URL';
/** The run's tag in the names of its databases (so the runner can sweep what a killed process left). */
export const TEST_RUN_ENV = 'AGENTPLANE_TEST_RUN_ID';
