// Counting what the replicas ask PostgreSQL. The replicas phase runs on a cluster of its own
// (not DATABASE_URL's, not the tests' shared one) started with pg_stat_statements preloaded,
// so every statement a replica sends — BEGIN and COMMIT included (track_utility is on by
// default) — is counted by the server itself, whichever tree sent it: the count needs no
// help from the code under test, so the baseline's is counted the same way.
import { ownCluster, withAdmin, type OwnCluster } from '../../test/support/postgres.ts';

export interface StatementCounter {
  /** A new database on the counting cluster, with pg_stat_statements installed in it. */
  freshDatabase(): Promise<string>;
  /** Forgets every count so far (all databases). */
  reset(url: string): Promise<void>;
  /** Statements executed in this database since the last reset, and the most frequent ones. */
  count(url: string): Promise<{ calls: number; top: { calls: number; query: string }[] }>;
  stop(): Promise<void>;
}

export async function countingPostgres(): Promise<StatementCounter> {
  const cluster: OwnCluster = await ownCluster();
  // preloading takes a restart; ALTER SYSTEM writes postgresql.auto.conf, read at start
  await withAdmin(cluster.url, (c) => c.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`));
  await cluster.stop();
  await cluster.start();
  let made = 0;
  const urlOf = (name: string) => {
    const url = new URL(cluster.url);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    async freshDatabase() {
      made += 1;
      const name = `bench_replicas_${process.pid}_${made}`;
      await withAdmin(cluster.url, (c) => c.query(`CREATE DATABASE ${name}`));
      const url = urlOf(name);
      await withAdmin(url, (c) => c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements'));
      return url;
    },
    async reset(url) {
      await withAdmin(url, (c) => c.query('SELECT pg_stat_statements_reset()'));
    },
    async count(url) {
      return withAdmin(url, async (c) => {
        const where = `dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`;
        const total = await c.query<{ calls: string | null }>(`SELECT sum(calls) AS calls FROM pg_stat_statements WHERE ${where}`);
        const top = await c.query<{ calls: string; query: string }>(
          `SELECT calls, regexp_replace(query, '\\s+', ' ', 'g') AS query FROM pg_stat_statements WHERE ${where} ORDER BY calls DESC LIMIT 40`,
        );
        return { calls: Number(total.rows[0]?.calls ?? 0), top: top.rows.map((r) => ({ calls: Number(r.calls), query: r.query.slice(0, 160) })) };
      });
    },
    stop: () => cluster.stop(),
  };
}
