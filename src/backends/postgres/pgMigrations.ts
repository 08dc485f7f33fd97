// The PostgreSQL schema, as numbered migrations. Each is applied once, in order, inside one
// transaction holding an advisory lock, so replicas starting together on an empty database
// neither race nor half-apply a step; `agentplane_migrations` records what has run.
// Migrations are append-only: a shipped step is never edited, a change is a new number.
// (Plain SQL in a TypeScript module rather than .sql files so the compiled package carries
// them without a copy step.)

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'records',
    // One table for every collection. `seq` is taken at first insert and kept by updates, so
    // lists keep insertion order like the embedded store. The document is `json`, not
    // `jsonb`: json keeps the text as written, so replies keep the key order clients sent
    // (jsonb reorders keys) and the API answers the same bytes on both backends. Filtered
    // fields get expression indexes (see PgStore.collection), not a GIN index over the doc.
    sql: `
      CREATE SEQUENCE agentplane_record_seq;
      CREATE TABLE agentplane_records (
        collection text NOT NULL,
        id text NOT NULL,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        doc json NOT NULL,
        PRIMARY KEY (collection, id)
      );
      CREATE INDEX agentplane_records_order ON agentplane_records (collection, seq);
      CREATE TABLE agentplane_indexes (
        collection text NOT NULL,
        field text NOT NULL,
        index_name text NOT NULL UNIQUE,
        PRIMARY KEY (collection, field)
      );
    `,
  },
  {
    version: 2,
    name: 'replicas',
    // What replicas share besides records (see pgRunClaims.ts, pgRunEvents.ts). A claim is a
    // replica's leased right to execute one run; `thread_id` is unique, so the database
    // itself keeps a thread to one running run. Event logs are kept per run so a reader on
    // any replica can follow (and resume) a run executing on another.
    sql: `
      CREATE TABLE agentplane_run_claims (
        run_id text PRIMARY KEY,
        thread_id text NOT NULL UNIQUE,
        replica text NOT NULL,
        lease_until timestamptz NOT NULL,
        cancel text
      );
      CREATE INDEX agentplane_run_claims_replica ON agentplane_run_claims (replica);
      CREATE TABLE agentplane_run_logs (
        run_id text PRIMARY KEY,
        owner text NOT NULL,
        thread_id text,
        result json,
        ended_at timestamptz
      );
      CREATE INDEX agentplane_run_logs_ended ON agentplane_run_logs (ended_at) WHERE ended_at IS NOT NULL;
      CREATE TABLE agentplane_run_events (
        run_id text NOT NULL,
        n integer NOT NULL,
        event text NOT NULL,
        data json,
        PRIMARY KEY (run_id, n)
      );
    `,
  },
];

/** Key of the advisory lock that serialises migrations (and index creation) across replicas. */
export const SCHEMA_LOCK = 0x61677370; // 'agsp'
