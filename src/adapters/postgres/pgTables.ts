// Where each area's records live on PostgreSQL: a table per collection (made by migration 3
// in pgMigrations.ts), with real columns for what is filtered, sorted, owned or joined on,
// and the record itself as a `json` document (json keeps the key order clients sent). The
// columns are derived from the document on every write, here, so the two never disagree;
// `where` in a collection's queries names a field that is one of these columns. A collection
// not listed here (tests, tools) stays in the generic table `agentplane_documents`.

export type ColumnType = 'text' | 'timestamptz' | 'jsonb' | 'integer' | 'float8' | 'boolean';

export interface Column {
  /** The column's name. */
  name: string;
  /** The record field `where` names it by. */
  field: string;
  type: ColumnType;
  /** The column's value from the record. */
  value: (doc: Record<string, unknown>) => unknown;
}

export interface AreaTable {
  collection: string;
  table: string;
  /** The primary key column (the collection's id). */
  key: string;
  columns: Column[];
}

/** A column holding one top-level field (`null` when absent unless a fallback is given). */
function field(name: string, type: ColumnType = 'text', fallback: unknown = null, column = name): Column {
  return { name: column, field: name, type, value: (doc) => doc[name] ?? fallback };
}

/** A field of a deployment's `source_config`. */
function sourceConfig(name: string): Column {
  return { name, field: `source_config.${name}`, type: 'text', value: (doc) => (doc.source_config as Record<string, unknown> | undefined)?.[name] ?? null };
}

/** '' for a record stored without an owner, as ownerOf in agent/records.ts reads it. */
const owner: Column = field('owner', 'text', '');
const metadata: Column = field('metadata', 'jsonb', {});
const created = field('created_at', 'timestamptz');
const updated = field('updated_at', 'timestamptz');

const AREAS: AreaTable[] = [
  { collection: 'threads', table: 'agentplane_threads', key: 'thread_id', columns: [owner, field('status'), created, updated, metadata] },
  {
    collection: 'runs',
    table: 'agentplane_runs',
    key: 'run_id',
    columns: [
      field('thread_id'),
      owner,
      field('assistant_id'),
      field('status'),
      created,
      updated,
      // when a pending run may start (its created_at plus this); the claim query reads it
      {
        name: 'after_seconds',
        field: 'after_seconds',
        type: 'float8',
        value: (doc) => Number((doc.kwargs as Record<string, unknown> | undefined)?.after_seconds ?? 0) || 0,
      },
    ],
  },
  {
    collection: 'assistants',
    table: 'agentplane_assistants',
    key: 'assistant_id',
    columns: [owner, field('graph_id'), field('name'), created, updated, metadata],
  },
  {
    collection: 'assistant_versions',
    table: 'agentplane_assistant_versions',
    key: 'id',
    columns: [field('assistant_id'), field('version', 'integer'), created, metadata],
  },
  { collection: 'checkpoints', table: 'agentplane_checkpoints', key: 'id', columns: [field('thread_id'), field('thread_ns'), field('checkpoint_id')] },
  { collection: 'checkpoint_writes', table: 'agentplane_checkpoint_writes', key: 'id', columns: [field('thread_id'), field('cp_key')] },
  { collection: 'checkpoint_values', table: 'agentplane_checkpoint_values', key: 'id', columns: [field('thread_id')] },
  { collection: 'plain_checkpoints', table: 'agentplane_plain_checkpoints', key: 'id', columns: [field('thread_id')] },
  { collection: 'plain_heads', table: 'agentplane_plain_heads', key: 'id', columns: [] },
  { collection: 'store_items', table: 'agentplane_store_items', key: 'id', columns: [field('scope'), created, updated] },
  {
    collection: 'crons',
    table: 'agentplane_crons',
    key: 'cron_id',
    columns: [
      field('scope'),
      field('thread_id'),
      field('assistant_id'),
      field('enabled', 'boolean', false),
      field('next_run_date', 'timestamptz'),
      field('end_time', 'timestamptz'),
      created,
      updated,
      metadata,
    ],
  },
  { collection: 'a2a_tasks', table: 'agentplane_a2a_tasks', key: 'id', columns: [owner, field('contextId', 'text', null, 'context_id')] },
  {
    collection: 'cp-deployments',
    table: 'agentplane_deployments',
    key: 'id',
    columns: [
      field('tenant_id'),
      field('tenant_name'),
      field('name'),
      field('status'),
      field('image_version'),
      sourceConfig('deployment_type'),
      sourceConfig('listener_id'),
      created,
      updated,
    ],
  },
  {
    collection: 'cp-revisions',
    table: 'agentplane_revisions',
    key: 'id',
    columns: [field('deployment_id'), field('tenant_id'), field('status'), created, updated],
  },
  { collection: 'cp-auth-providers', table: 'agentplane_auth_providers', key: 'id', columns: [field('tenant_id'), field('tenant_provider')] },
  // the auth service's tokens (sealed in the document) and flows (migration 6)
  {
    collection: 'cp-auth-tokens',
    table: 'agentplane_auth_tokens',
    key: 'id',
    columns: [field('tenant_id'), field('owner_key'), field('provider_record_id')],
  },
  { collection: 'cp-auth-flows', table: 'agentplane_auth_flows', key: 'id', columns: [field('tenant_id'), field('provider_record_id')] },
  // webhook deliveries waiting, each leased to a replica (migration 11, pgWebhookOutbox.ts)
  { collection: 'webhook_deliveries', table: 'agentplane_webhook_deliveries', key: 'id', columns: [field('holder'), field('lease_until', 'timestamptz')] },
];

const BY_COLLECTION = new Map(AREAS.map((a) => [a.collection, a]));

/** The table of a collection, or undefined for one kept in the generic table. */
export function areaTable(collection: string): AreaTable | undefined {
  return BY_COLLECTION.get(collection);
}

/** The column a `where` field names in a table. */
export function columnOf(area: AreaTable, name: string): Column | undefined {
  return area.columns.find((c) => c.field === name);
}

/** An RFC 3339 time in year 0000 (1 BC): valid where clients send it (a cron's `end_time`), not in PostgreSQL's ISO input. */
const YEAR_ZERO = /^0000-/;

/**
 * A column's value as a query parameter (objects as JSON text for `jsonb`). A time in year
 * 0000 goes as a Date, which the driver writes as PostgreSQL reads it (`0001-01-01 … BC`):
 * as text it failed the write with "date/time field value out of range" (a 500) where the
 * embedded store kept it.
 */
export function columnParam(column: Column, doc: Record<string, unknown>): unknown {
  const value = column.value(doc);
  if (column.type === 'timestamptz' && typeof value === 'string' && YEAR_ZERO.test(value)) return new Date(value);
  return column.type === 'jsonb' ? JSON.stringify(value) : value;
}
