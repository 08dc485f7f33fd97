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

// What migration 3 needs to read the old documents; frozen with it (a later change is a new migration).
const MOVED = `'threads', 'runs', 'assistants', 'assistant_versions', 'checkpoints', 'checkpoint_writes', 'plain_checkpoints', 'plain_heads', 'store_items', 'crons', 'a2a_tasks', 'cp-deployments', 'cp-revisions', 'cp-auth-providers'`;
const OWNER = `coalesce(doc->>'owner', '')`;
const METADATA = `coalesce(nullif((doc->'metadata')::jsonb, 'null'::jsonb), '{}'::jsonb)`;
function text(field: string): string {
  return `doc->>'${field}'`;
}
function time(field: string): string {
  return `(doc->>'${field}')::timestamptz`;
}

/** Copies one collection's rows from agentplane_records into its table, keeping their seq. */
function moveRows(collection: string, table: string, columns: Record<string, string>, only = 'true'): string {
  const names = Object.keys(columns);
  return `INSERT INTO ${table} (${names.join(', ')}, seq, doc)
        SELECT ${names.map((n) => columns[n].replaceAll('doc', 'r.doc').replace(/^id$/, 'r.id')).join(', ')}, r.seq, r.doc
        FROM agentplane_records r WHERE r.collection = '${collection}' AND ${only} ORDER BY r.seq;`;
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
    // What replicas share besides records (see run-storage/pgRunClaims.ts, pgRunEventLog.ts). A claim is a
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
  {
    version: 3,
    name: 'area tables',
    // A table per area instead of every record in agentplane_records, with real columns for
    // what the queries filter, sort, own and join on (kept from the document on every write,
    // see pgTables.ts) and every index here rather than made at run time. `seq` keeps
    // insertion order (the rows moved keep theirs). Foreign keys are deferred to the commit,
    // because one batch may write a run before the thread it belongs to. The moved rows leave
    // agentplane_records, with the run-time indexes made for them; runs, versions and
    // revisions whose parent is gone are not moved (nothing could reach them).
    sql: `
      CREATE TABLE agentplane_threads (
        thread_id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        owner text NOT NULL,
        status text,
        created_at timestamptz,
        updated_at timestamptz,
        metadata jsonb NOT NULL,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_threads_seq ON agentplane_threads (seq);
      CREATE INDEX agentplane_threads_owner_created ON agentplane_threads (owner, created_at, seq);
      CREATE INDEX agentplane_threads_owner_updated ON agentplane_threads (owner, updated_at, seq);
      CREATE INDEX agentplane_threads_owner_status ON agentplane_threads (owner, status, created_at, seq);
      CREATE INDEX agentplane_threads_status ON agentplane_threads (status, seq);
      CREATE INDEX agentplane_threads_metadata ON agentplane_threads USING gin (metadata jsonb_path_ops);

      CREATE TABLE agentplane_runs (
        run_id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        thread_id text NOT NULL REFERENCES agentplane_threads ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        owner text NOT NULL,
        assistant_id text,
        status text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz,
        after_seconds float8 NOT NULL,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_runs_seq ON agentplane_runs (seq);
      CREATE INDEX agentplane_runs_thread ON agentplane_runs (thread_id, seq);
      CREATE INDEX agentplane_runs_status ON agentplane_runs (status, seq);
      CREATE INDEX agentplane_runs_pending_thread ON agentplane_runs (thread_id, seq) WHERE status = 'pending';

      CREATE TABLE agentplane_assistants (
        assistant_id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        owner text NOT NULL,
        graph_id text,
        name text,
        created_at timestamptz,
        updated_at timestamptz,
        metadata jsonb NOT NULL,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_assistants_seq ON agentplane_assistants (seq);
      CREATE INDEX agentplane_assistants_owner ON agentplane_assistants (owner, created_at, seq);
      CREATE INDEX agentplane_assistants_graph ON agentplane_assistants (graph_id, seq);
      CREATE INDEX agentplane_assistants_metadata ON agentplane_assistants USING gin (metadata jsonb_path_ops);

      CREATE TABLE agentplane_assistant_versions (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        assistant_id text NOT NULL REFERENCES agentplane_assistants ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        version integer,
        created_at timestamptz,
        metadata jsonb NOT NULL,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_assistant_versions_seq ON agentplane_assistant_versions (seq);
      CREATE INDEX agentplane_assistant_versions_assistant ON agentplane_assistant_versions (assistant_id, seq);

      CREATE TABLE agentplane_checkpoints (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        thread_id text,
        thread_ns text,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_checkpoints_seq ON agentplane_checkpoints (seq);
      CREATE INDEX agentplane_checkpoints_thread ON agentplane_checkpoints (thread_id, seq);
      CREATE INDEX agentplane_checkpoints_thread_ns ON agentplane_checkpoints (thread_ns, seq);

      CREATE TABLE agentplane_checkpoint_writes (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        thread_id text,
        cp_key text,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_checkpoint_writes_seq ON agentplane_checkpoint_writes (seq);
      CREATE INDEX agentplane_checkpoint_writes_thread ON agentplane_checkpoint_writes (thread_id, seq);
      CREATE INDEX agentplane_checkpoint_writes_cp_key ON agentplane_checkpoint_writes (cp_key, seq);

      CREATE TABLE agentplane_plain_checkpoints (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        thread_id text,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_plain_checkpoints_seq ON agentplane_plain_checkpoints (seq);
      CREATE INDEX agentplane_plain_checkpoints_thread ON agentplane_plain_checkpoints (thread_id, seq);

      CREATE TABLE agentplane_plain_heads (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_plain_heads_seq ON agentplane_plain_heads (seq);

      CREATE TABLE agentplane_store_items (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        scope text,
        created_at timestamptz,
        updated_at timestamptz,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_store_items_seq ON agentplane_store_items (seq);
      CREATE INDEX agentplane_store_items_scope ON agentplane_store_items (scope, seq);

      CREATE TABLE agentplane_crons (
        cron_id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        scope text,
        thread_id text,
        assistant_id text,
        enabled boolean NOT NULL,
        next_run_date timestamptz,
        end_time timestamptz,
        created_at timestamptz,
        updated_at timestamptz,
        metadata jsonb NOT NULL,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_crons_seq ON agentplane_crons (seq);
      CREATE INDEX agentplane_crons_due ON agentplane_crons (seq) WHERE enabled AND next_run_date IS NOT NULL;
      CREATE INDEX agentplane_crons_scope ON agentplane_crons (scope, seq);
      CREATE INDEX agentplane_crons_metadata ON agentplane_crons USING gin (metadata jsonb_path_ops);

      CREATE TABLE agentplane_a2a_tasks (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        owner text NOT NULL,
        context_id text,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_a2a_tasks_seq ON agentplane_a2a_tasks (seq);
      CREATE INDEX agentplane_a2a_tasks_context ON agentplane_a2a_tasks (context_id, seq);

      CREATE TABLE agentplane_deployments (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        tenant_id text,
        tenant_name text,
        name text,
        status text,
        image_version text,
        deployment_type text,
        listener_id text,
        created_at timestamptz,
        updated_at timestamptz,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_deployments_seq ON agentplane_deployments (seq);
      CREATE INDEX agentplane_deployments_tenant ON agentplane_deployments (tenant_id, seq);
      CREATE INDEX agentplane_deployments_tenant_name ON agentplane_deployments (tenant_name, seq);
      CREATE INDEX agentplane_deployments_status ON agentplane_deployments (status, seq);

      CREATE TABLE agentplane_revisions (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        deployment_id text NOT NULL REFERENCES agentplane_deployments ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        tenant_id text,
        status text,
        created_at timestamptz,
        updated_at timestamptz,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_revisions_seq ON agentplane_revisions (seq);
      CREATE INDEX agentplane_revisions_deployment ON agentplane_revisions (deployment_id, seq);
      CREATE INDEX agentplane_revisions_status ON agentplane_revisions (status, seq);

      CREATE TABLE agentplane_auth_providers (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        tenant_id text,
        tenant_provider text,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_auth_providers_seq ON agentplane_auth_providers (seq);
      CREATE INDEX agentplane_auth_providers_tenant ON agentplane_auth_providers (tenant_id, seq);
      CREATE INDEX agentplane_auth_providers_tenant_provider ON agentplane_auth_providers (tenant_provider, seq);

      ${moveRows('threads', 'agentplane_threads', { thread_id: 'id', owner: OWNER, status: text('status'), created_at: time('created_at'), updated_at: time('updated_at'), metadata: METADATA })}
      ${moveRows(
        'runs',
        'agentplane_runs',
        {
          run_id: 'id',
          thread_id: text('thread_id'),
          owner: OWNER,
          assistant_id: text('assistant_id'),
          status: text('status'),
          created_at: time('created_at'),
          updated_at: time('updated_at'),
          after_seconds: `coalesce((doc->'kwargs'->>'after_seconds')::float8, 0)`,
        },
        `EXISTS (SELECT 1 FROM agentplane_threads t WHERE t.thread_id = r.doc->>'thread_id')`,
      )}
      ${moveRows('assistants', 'agentplane_assistants', { assistant_id: 'id', owner: OWNER, graph_id: text('graph_id'), name: text('name'), created_at: time('created_at'), updated_at: time('updated_at'), metadata: METADATA })}
      ${moveRows('assistant_versions', 'agentplane_assistant_versions', { id: 'id', assistant_id: text('assistant_id'), version: `(doc->>'version')::integer`, created_at: time('created_at'), metadata: METADATA }, `EXISTS (SELECT 1 FROM agentplane_assistants a WHERE a.assistant_id = r.doc->>'assistant_id')`)}
      ${moveRows('checkpoints', 'agentplane_checkpoints', { id: 'id', thread_id: text('thread_id'), thread_ns: text('thread_ns') })}
      ${moveRows('checkpoint_writes', 'agentplane_checkpoint_writes', { id: 'id', thread_id: text('thread_id'), cp_key: text('cp_key') })}
      ${moveRows('plain_checkpoints', 'agentplane_plain_checkpoints', { id: 'id', thread_id: text('thread_id') })}
      ${moveRows('plain_heads', 'agentplane_plain_heads', { id: 'id' })}
      ${moveRows('store_items', 'agentplane_store_items', { id: 'id', scope: text('scope'), created_at: time('created_at'), updated_at: time('updated_at') })}
      ${moveRows('crons', 'agentplane_crons', {
        cron_id: 'id',
        scope: text('scope'),
        thread_id: text('thread_id'),
        assistant_id: text('assistant_id'),
        enabled: `coalesce((doc->>'enabled')::boolean, false)`,
        next_run_date: time('next_run_date'),
        end_time: time('end_time'),
        created_at: time('created_at'),
        updated_at: time('updated_at'),
        metadata: METADATA,
      })}
      ${moveRows('a2a_tasks', 'agentplane_a2a_tasks', { id: 'id', owner: OWNER, context_id: text('contextId') })}
      ${moveRows('cp-deployments', 'agentplane_deployments', {
        id: 'id',
        tenant_id: text('tenant_id'),
        tenant_name: text('tenant_name'),
        name: text('name'),
        status: text('status'),
        image_version: text('image_version'),
        deployment_type: `doc->'source_config'->>'deployment_type'`,
        listener_id: `doc->'source_config'->>'listener_id'`,
        created_at: time('created_at'),
        updated_at: time('updated_at'),
      })}
      ${moveRows('cp-revisions', 'agentplane_revisions', { id: 'id', deployment_id: text('deployment_id'), tenant_id: text('tenant_id'), status: text('status'), created_at: time('created_at'), updated_at: time('updated_at') }, `EXISTS (SELECT 1 FROM agentplane_deployments d WHERE d.id = r.doc->>'deployment_id')`)}
      ${moveRows('cp-auth-providers', 'agentplane_auth_providers', { id: 'id', tenant_id: text('tenant_id'), tenant_provider: text('tenant_provider') })}

      DO $$
      DECLARE made record;
      BEGIN
        FOR made IN SELECT index_name FROM agentplane_indexes WHERE collection IN (${MOVED}) LOOP
          EXECUTE 'DROP INDEX IF EXISTS ' || quote_ident(made.index_name);
        END LOOP;
      END $$;
      DELETE FROM agentplane_indexes WHERE collection IN (${MOVED});
      DELETE FROM agentplane_records WHERE collection IN (${MOVED});
    `,
  },
  {
    version: 4,
    name: 'runs by assistant',
    // an assistant's run metrics (GET /assistants/{id}/metrics) read one owner's runs of one
    // assistant in a window (a system assistant is every owner's); without this they would
    // scan every run of the server
    sql: `CREATE INDEX agentplane_runs_assistant_owner_created ON agentplane_runs (assistant_id, owner, created_at);`,
  },
  {
    version: 5,
    name: 'newest checkpoint of a thread',
    // a run's start reads its thread's newest checkpoint: one row by this index, where it read
    // every checkpoint of the thread (each holding the whole state) to find the newest
    sql: `
      ALTER TABLE agentplane_checkpoints ADD COLUMN checkpoint_id text;
      UPDATE agentplane_checkpoints SET checkpoint_id = doc->>'checkpoint_id';
      CREATE INDEX agentplane_checkpoints_newest ON agentplane_checkpoints (thread_ns, checkpoint_id COLLATE "C", seq);
    `,
  },
  {
    version: 6,
    name: 'agent auth tokens and flows',
    // the auth service's tokens (sealed in the document: the columns carry no secret) and its
    // flows, each found by tenant, by owner (tenant/user/provider) or by the provider record
    // they go with when it is deleted
    sql: `
      CREATE TABLE agentplane_auth_tokens (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        tenant_id text,
        owner_key text,
        provider_record_id text,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_auth_tokens_seq ON agentplane_auth_tokens (seq);
      CREATE INDEX agentplane_auth_tokens_tenant ON agentplane_auth_tokens (tenant_id, seq);
      CREATE INDEX agentplane_auth_tokens_owner ON agentplane_auth_tokens (owner_key, seq);
      CREATE INDEX agentplane_auth_tokens_provider ON agentplane_auth_tokens (provider_record_id, seq);
      CREATE TABLE agentplane_auth_flows (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        tenant_id text,
        provider_record_id text,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_auth_flows_seq ON agentplane_auth_flows (seq);
      CREATE INDEX agentplane_auth_flows_tenant ON agentplane_auth_flows (tenant_id, seq);
      CREATE INDEX agentplane_auth_flows_provider ON agentplane_auth_flows (provider_record_id, seq);
    `,
  },
  {
    version: 7,
    name: 'one-table layout fenced',
    // A build from before migration 3 checks only that the migrations it knows (1 and 2) are
    // applied, then reads and writes every record in agentplane_records: on a migrated
    // database it saw an empty store and acknowledged writes the area tables never show. The
    // generic table (collections of no area) and its index register take new names, and the
    // old names become views that fail every statement with a message saying why, so such a
    // build fails its first query (its index check, at start) instead of serving an empty
    // store. Builds from this one on refuse a schema newer than they know (pgStore.ts).
    sql: `
      ALTER TABLE agentplane_records RENAME TO agentplane_documents;
      ALTER INDEX agentplane_records_order RENAME TO agentplane_documents_order;
      ALTER TABLE agentplane_indexes RENAME TO agentplane_document_indexes;
      CREATE FUNCTION agentplane_old_layout_refused() RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'This database''s agentplane schema is at version %, and this build of agentplane is older than version 3: it reads the one-table layout (agentplane_records), which no longer holds the records.',
          (SELECT max(version) FROM agentplane_migrations)
          USING HINT = 'Run the build that migrated the database on every replica (docs/scale-out.md, "Upgrading replicas").';
      END $$;
      CREATE FUNCTION agentplane_old_records() RETURNS TABLE (collection text, id text, seq bigint, doc json) LANGUAGE plpgsql AS $$
      BEGIN PERFORM agentplane_old_layout_refused(); END $$;
      CREATE FUNCTION agentplane_old_indexes() RETURNS TABLE (collection text, field text, index_name text) LANGUAGE plpgsql AS $$
      BEGIN PERFORM agentplane_old_layout_refused(); END $$;
      CREATE FUNCTION agentplane_old_layout_written() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM agentplane_old_layout_refused(); RETURN NULL; END $$;
      CREATE VIEW agentplane_records AS SELECT * FROM agentplane_old_records();
      CREATE VIEW agentplane_indexes AS SELECT * FROM agentplane_old_indexes();
      CREATE TRIGGER agentplane_records_refused INSTEAD OF INSERT OR UPDATE OR DELETE ON agentplane_records FOR EACH ROW EXECUTE FUNCTION agentplane_old_layout_written();
      CREATE TRIGGER agentplane_indexes_refused INSTEAD OF INSERT OR UPDATE OR DELETE ON agentplane_indexes FOR EACH ROW EXECUTE FUNCTION agentplane_old_layout_written();
    `,
  },
  {
    version: 8,
    name: 'run claim tokens',
    // A claim's own token, new each time a run is claimed: a run's end, a renewal and a release
    // name the claim they belong to, so a replica whose claim was taken over (and the run
    // claimed again, by another replica or by itself) writes nothing for it (run-storage/pgRunClaims.ts).
    // A claim from before has none, and is only ever taken over.
    sql: `ALTER TABLE agentplane_run_claims ADD COLUMN token text;`,
  },
  {
    version: 9,
    name: 'checkpoint channel values',
    // a checkpoint's channel values stored apart, each once, named by the checkpoints that hold
    // it unchanged (checkpointsRepository.ts ChannelValueRecord); a checkpoint stored before
    // holds its values in its own document and reads as it is
    sql: `
      CREATE TABLE agentplane_checkpoint_values (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        thread_id text,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_checkpoint_values_seq ON agentplane_checkpoint_values (seq);
      CREATE INDEX agentplane_checkpoint_values_thread ON agentplane_checkpoint_values (thread_id, seq);
    `,
  },
  {
    version: 10,
    name: 'checkpoint channel values as tails',
    // No table changes shape: a value that extends the one before it in its thread is stored
    // as the text it adds (ChannelValueRecord.keep, ChannelRef.base; agent/checkpoints/channelChains.ts).
    // A build before this reads such a record as the whole value, a wrong state; the version
    // makes it refuse this database when it starts (refuseNewerSchema), as for any other change.
    sql: `
      COMMENT ON TABLE agentplane_checkpoint_values IS
        'A checkpoint channel value, stored once: whole, or (doc.keep) as the text it adds to the value before it in its chain (migration 10).';
    `,
  },
  {
    version: 11,
    name: 'webhook deliveries',
    // a run's webhook is stored with its end and leased to the replica that sends it; a
    // replica that dies leaves it to the others once the lease runs out (pgWebhookOutbox.ts)
    sql: `
      CREATE TABLE agentplane_webhook_deliveries (
        id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT nextval('agentplane_record_seq'),
        holder text,
        lease_until timestamptz,
        doc json NOT NULL
      );
      CREATE UNIQUE INDEX agentplane_webhook_deliveries_seq ON agentplane_webhook_deliveries (seq);
      CREATE INDEX agentplane_webhook_deliveries_lease ON agentplane_webhook_deliveries (lease_until);
    `,
  },
  {
    version: 12,
    name: 'fields set in place',
    // a write of some fields of a record where it stands, not of a copy read before (the
    // SetOp of domain/ports/store.ts, pgSetOp.ts): a run's end sets its thread's status,
    // values and interrupts over whatever was written to the thread while the run ended.
    // agentplane_json_set: the document with `fields` set, every other key and the order of
    // all kept (json, not jsonb: clients' key order is kept); agentplane_exists_now: whether
    // `query` (a SELECT EXISTS over `$1`, the array `args`) finds a row, read with a snapshot
    // taken when it is called (volatile), not with that of the statement calling it
    sql: `
      CREATE FUNCTION agentplane_json_set(doc json, fields json) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT COALESCE(json_object_agg(COALESCE(d.key, f.key), COALESCE(f.value, d.value) ORDER BY d.place NULLS LAST, f.place), '{}'::json)
          FROM json_each(doc) WITH ORDINALITY AS d(key, value, place)
          FULL JOIN json_each(fields) WITH ORDINALITY AS f(key, value, place) ON f.key = d.key
      $$;
      CREATE FUNCTION agentplane_exists_now(query text, args text[]) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
          found boolean;
        BEGIN
          EXECUTE query INTO found USING args;
          RETURN found;
        END
      $$;
    `,
  },
  {
    version: 13,
    name: 'runs counted now, their plan kept',
    // whether runs of a thread are in a status, read with a snapshot taken when it is called
    // (volatile, as agentplane_exists_now, migration 12), for a run's end and a cancel that set
    // the thread's status (pgSetOp.ts): a static query, planned once per connection (~6-9 µs a
    // call against ~70 for agentplane_exists_now's EXECUTE, which plans every time). PL/pgSQL,
    // which the planner never inlines: an SQL function inlined would read with the snapshot of
    // the statement calling it
    sql: `
      CREATE FUNCTION agentplane_runs_exist_now(thread text, wanted text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
          RETURN EXISTS (SELECT 1 FROM agentplane_runs r WHERE r.thread_id = thread AND r.status = wanted);
        END
      $$;
    `,
  },
  {
    version: 14,
    name: 'pending runs read without their dead entries',
    // Every run leaves an entry in the pending-runs index for its pending version, dead once it
    // runs, until a vacuum; a bitmap scan never marks one dead, so it reads each one's heap page
    // at every look (741 entries for 169 pending runs, 200 pages, in the bench's plain round).
    // A run's end asking whether its thread has runs pending (agentplane_runs_exist_now, migration
    // 13) read with a plan kept for any status: the status index and the thread's index
    // intersected, a bitmap scan of both. For 'pending' it now reads the pending-runs index by
    // thread (an index scan: the thread's entries only, and those it finds dead it marks so).
    // The claim's look for the next delayed run (pgRunClaims.ts NEXT_DUE_SQL) read every pending
    // run's page for the few that wait for their after_seconds: they get an index of their own.
    sql: `
      CREATE OR REPLACE FUNCTION agentplane_runs_exist_now(thread text, wanted text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
          IF wanted = 'pending' THEN
            RETURN EXISTS (SELECT 1 FROM agentplane_runs r WHERE r.thread_id = thread AND r.status = 'pending');
          END IF;
          RETURN EXISTS (SELECT 1 FROM agentplane_runs r WHERE r.thread_id = thread AND r.status = wanted);
        END
      $$;
      CREATE INDEX agentplane_runs_pending_delayed ON agentplane_runs (seq) WHERE status = 'pending' AND after_seconds > 0;
    `,
  },
];

/** Key of the advisory lock that serialises migrations (and index creation) across replicas. */
export const SCHEMA_LOCK = 0x61677370; // 'agsp'
