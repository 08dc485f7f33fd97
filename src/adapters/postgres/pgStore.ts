// The PostgreSQL store (DATABASE_URL / --database): the same Store contract as the embedded
// journal store. Each area's collection has its own table with real columns (pgTables.ts,
// made by pgMigrations.ts), and `where` is answered by those columns and their indexes; a
// collection of no known area shares the generic table of documents, where the fields it
// declares as indexed get expression indexes made at run time. Writes are transactions, so
// an acknowledged write is committed; `update` is a row-locked read-modify-write; a batch is
// one transaction. `filter` closures run here, over the rows read in insertion order in
// bounded batches (never the whole table at once); the repositories' named queries
// (pgThreads.ts, run-storage/pgRunStore.ts, pgAssistants.ts, pgCrons.ts, pgDeployments.ts) filter and sort in
// SQL instead.
// Any number of server processes may share the database (see pgCoordination.ts for how
// they divide the work).
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Collection, CollectionOptions, ListOptions, PutOp, SetOp, Store, WriteOp } from '../../domain/ports/store.ts';
import { existsQuery, setStatement, type ExistsQuery, type SetTarget } from './pgSetOp.ts';
import { MIGRATIONS, SCHEMA_LOCK } from './pgMigrations.ts';
import { containsAll } from '../../domain/ports/containment.ts';
import { asStoreFailure, isDatabaseUnavailable, openPool } from './pgConnections.ts';
import { areaTable, columnOf, columnParam, type AreaTable } from './pgTables.ts';

export interface PgStoreOptions {
  url: string;
  /** Connections in the pool (AGENTPLANE_DATABASE_POOL, default 10). */
  poolSize?: number;
}

/** A condition that writes wait on (writeIf), and what else it lets through. */
interface Gate {
  condition: string;
  params: unknown[];
  then?: GateThen;
  /** More statements the gate lets through, after the writes (rows no statement locks before another's). */
  also?: GateAlso[];
}

/**
 * A data-modifying statement written with the gated writes (writeIf's `also`): `sql` reads the
 * gate itself (`EXISTS (SELECT 1 FROM gate)`: a row while it holds), over `params` as $1…,
 * and a NOTIFY (channel, payload) is sent with it while the gate holds.
 */
export interface GateAlso {
  sql: string;
  params: unknown[];
  notify?: [channel: string, payload: string];
}

/**
 * One more data-modifying statement a gate lets through with the writes (writeIf): `sql` a
 * DELETE or UPDATE ending in its WHERE (the gate's condition is added to it) over `params`
 * as $1…, and a NOTIFY (channel, payload) sent with it.
 */
export interface GateThen {
  sql: string;
  params: unknown[];
  notify?: [channel: string, payload: string];
}

/** Rows read per round trip while a `filter` closure scans a collection. */
const SCAN_BATCH = 500;

interface Row {
  seq: string;
  doc: object;
}

export async function openPgStore(options: PgStoreOptions): Promise<PgStore> {
  const pool = openPool(options.url, options.poolSize ?? 10);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PgStore(pool, options.url);
}

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS agentplane_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM agentplane_migrations');
    const applied = new Set(rows.map((r) => r.version));
    refuseNewerSchema(Math.max(0, ...applied));
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      // the deferred foreign-key checks of the rows a migration moved run at its end, as if it
      // had committed alone: PostgreSQL refuses CREATE INDEX on a table with checks pending, so
      // a later migration could not index a table an earlier one filled in this transaction
      await client.query('SET CONSTRAINTS ALL IMMEDIATE');
      await client.query('INSERT INTO agentplane_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** The newest schema this build knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** Thrown when the database was migrated by a newer build. */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/**
 * A database a newer build migrated is refused: this build would not know the tables or
 * columns the newer one keeps records in, and would serve part of them (or none) as if whole.
 */
function refuseNewerSchema(databaseVersion: number): void {
  if (databaseVersion <= SCHEMA_VERSION) return;
  throw new SchemaTooNewError(
    `This database's agentplane schema is at version ${databaseVersion}, newer than this build knows (version ${SCHEMA_VERSION}): ` +
      'a newer agentplane migrated it. Run that build (or a newer one) on every replica; see docs/scale-out.md, "Upgrading replicas".',
  );
}

/**
 * The most ops written as one statement: a run's end writes ~6; a bulk write (an import, the
 * bench's seeding) goes in a transaction instead, so a statement's parameters (at most
 * 65,535) and its chain of WITHs (each waits on the one before) stay small.
 */
const ONE_STATEMENT_MAX = 16;

/**
 * What oneStatement's text is made of, as a key: the gate's condition and what it lets
 * through, each with its count of parameters, the caller's first WITH, and the collection of
 * each record written (its upsert and its count of parameters are the collection's).
 */
function shapeOf(ops: WriteOp[], gate?: Gate, first?: { name: string; cte: string }, sets?: Map<WriteOp, { sql: string }>): string {
  const extra = (e: GateThen | GateAlso | undefined) => (e ? `${e.sql}\u0001${e.params.length}\u0001${e.notify ? 1 : 0}` : '');
  const gated = gate ? [gate.condition, gate.params.length, extra(gate.then), ...(gate.also ?? []).map(extra)].join('\u0002') : '';
  return `${gated}\u0003${first ? `${first.name}\u0001${first.cte}` : ''}\u0003${ops.map((op) => (sets?.has(op) ? `${op.collection}\u0004${sets.get(op)!.sql}` : op.collection)).join('\u0001')}`;
}

/** Most statement texts prepared under a name of their own (PgStore.statementName). */
const PREPARED_TEXTS = 256;

/** Most gets read in one statement (PgStore.getDoc). */
const GETS_PER_STATEMENT = 32;

interface PendingGet {
  select: (param: string) => string;
  id: string;
  resolve: (doc: unknown) => void;
  reject: (error: unknown) => void;
}

export class PgStore implements Store {
  private readonly handles = new Map<string, PgCollection<object>>();
  /** Index creations under way; every query waits for them (collection() is synchronous). */
  private indexing: Promise<void> = Promise.resolve();
  private indexFailure: unknown = null;
  private closed = false;
  /** Gets asked in this turn of the microtask queue, not yet sent (see getDoc). */
  private gets: PendingGet[] | null = null;
  /** The names of the statements prepared by their text (see statementName). */
  private readonly statementNames = new Map<string, string>();
  /** oneStatement's and writeWith's texts by their shape (see shapeOf). */
  private readonly statementTexts = new Map<string, string>();

  constructor(
    readonly pool: pg.Pool,
    /** The connection string, for the connections coordination keeps apart from the pool. */
    readonly url: string,
  ) {}

  collection<T extends object>(name: string, options: CollectionOptions = {}): Collection<T> {
    const handle = this.handle(name);
    if (handle.area) {
      // an area's indexes are its table's, made by a migration: a field without a column is a bug
      for (const field of [...(options.indexes ?? []), ...(options.containment ?? [])]) handle.columnFor(field);
    } else {
      for (const field of options.indexes ?? []) this.index(name, field, 'equality', handle.indexed);
      for (const field of options.containment ?? []) this.index(name, field, 'containment', handle.containable);
    }
    return handle as unknown as Collection<T>;
  }

  private handle(name: string): PgCollection<object> {
    let handle = this.handles.get(name);
    if (!handle) this.handles.set(name, (handle = new PgCollection(name, this)));
    return handle;
  }

  /**
   * Queues the creation of an index once per field. One that fails because the database is
   * away is forgotten, so the next `collection()` naming the field tries again; any other
   * failure fails every query from then on (a schema that cannot be made is a bug).
   */
  private index(collection: string, field: string, kind: 'equality' | 'containment', made: Set<string>): void {
    if (made.has(field)) return;
    made.add(field);
    this.indexing = this.indexing
      .then(() => this.ensureIndex(collection, field, kind))
      .catch((error) => {
        if (isDatabaseUnavailable(error)) made.delete(field);
        else this.indexFailure ??= error;
      });
  }

  collectionNames(): string[] {
    return [...this.handles.keys()];
  }

  async write(ops: WriteOp[]): Promise<void> {
    if (ops.length === 0) return;
    const statement = this.oneStatement(ops);
    if (statement) await this.query(statement.sql, statement.params, true);
    else await this.transaction((client) => this.apply(client, ops));
  }

  /**
   * One op, or upserts of distinct records, as one statement (each upsert a data-modifying
   * WITH of it): atomic as the transaction is, without its BEGIN and COMMIT (two of the five
   * statements a run's enqueue sent); a record named twice is written once, with its last
   * value. With a `gate` (writeIf's condition, a WITH of its own
   * that every write waits on), nothing is written when it answers no row, and the statement
   * answers whether it did. Null when the ops hold a delete among others: those go in a
   * transaction. `withs`: one op too is a WITH (writeWith adds its own after it).
   */
  private oneStatement(ops: WriteOp[], gate?: Gate, first?: { name: string; cte: string }, withs = false): { sql: string; params: unknown[] } | null {
    if (ops.length === 1 && !gate && !withs) {
      const [op] = ops;
      const target = this.handle(op.collection);
      if ('set' in op) return this.setOf(op);
      return 'delete' in op ? { sql: target.deleteSql, params: [op.id] } : { sql: target.upsertSql, params: target.row(op.id, op.value, op.json) };
    }
    if (ops.length > ONE_STATEMENT_MAX || ops.some((op) => 'delete' in op)) return null;
    // a record upserted twice (a plain graph's head, once per step) ends as its last value, as in the transaction
    const last = new Map(ops.map((op) => [`${op.collection}\u0000${op.id}`, op]));
    // a record set in place reads what the statement began with, not what a WITH before wrote: one also written otherwise goes in a transaction
    if (ops.some((op) => 'set' in op && ops.some((other) => other !== op && other.collection === op.collection && other.id === op.id))) return null;
    ops = [...last.values()];
    const sets = new Map<WriteOp, { sql: string; params: unknown[] }>();
    for (const op of ops) if ('set' in op) sets.set(op, this.setOf(op));
    // the parameters: the gate's, then what else it lets through (see Gate.then and Gate.also), then each record's
    const params: unknown[] = [...(gate?.params ?? [])];
    for (const extra of [gate?.then, ...(gate?.also ?? [])]) if (extra) params.push(...extra.params, ...(extra.notify ?? []));
    for (const op of ops) params.push(...(sets.get(op)?.params ?? this.handle(op.collection).row(op.id, (op as PutOp).value, (op as PutOp).json)));
    // the text depends on the statement's shape alone: made once per shape (renumbering the
    // parameters of every WITH cost ~0.2 ms a run's end on a loaded host), kept as the
    // prepared statements' names are (at most PREPARED_TEXTS)
    const shape = shapeOf(ops, gate, first, sets);
    let sql = this.statementTexts.get(shape);
    if (sql === undefined) {
      sql = this.statementText(ops, gate, first, sets);
      if (this.statementTexts.size < PREPARED_TEXTS) this.statementTexts.set(shape, sql);
    }
    return { sql, params };
  }

  /** oneStatement's text for `ops` (distinct records, upserts only), its parameters numbered as oneStatement puts them. */
  private statementText(ops: WriteOp[], gate?: Gate, first?: { name: string; cte: string }, sets?: Map<WriteOp, { sql: string; params: unknown[] }>): string {
    let count = gate?.params.length ?? 0;
    // what else the gate lets through (see Gate.then and Gate.also), its parameters after the gate's
    const shift = (sql: string, by: number) => sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);
    const numbered = (extra: GateThen | GateAlso) => {
      const at = count;
      count += extra.params.length + (extra.notify?.length ?? 0);
      return { sql: shift(extra.sql, at), notify: extra.notify && `$${at + extra.params.length + 1}, $${at + extra.params.length + 2}` };
    };
    const then = gate?.then && numbered(gate.then);
    const also = (gate?.also ?? []).map(numbered);
    // a WITH every write waits on, so that it takes its locks first: the gated DELETE, or the
    // caller's (writeWith's `first`); two statements that lock a claim and a thread then both
    // lock the claim first, and cannot deadlock
    const before = then ? { name: 'gated', cte: `gated AS (${then.sql} AND EXISTS (SELECT 1 FROM gate) RETURNING 1)` } : first;
    const parts = ops.map((op, i) => {
      const target = this.handle(op.collection);
      const offset = count;
      const set = sets?.get(op);
      count += set ? set.params.length : target.paramCount;
      // PostgreSQL runs a statement's WITHs in no promised order (in practice the last
      // first), and a new record's seq is its place in insertion order: each upsert waits on
      // the one before it (reads its RETURNING row), so new records are numbered in op order;
      // an in-place set answers no row when its record is gone, so the one after it waits on it by count
      const previous = i > 0 && (sets?.has(ops[i - 1]) ? `(SELECT count(*) FROM w${i - 1}) >= 0` : `EXISTS (SELECT 1 FROM w${i - 1})`);
      const conditions = [
        ...(gate ? ['EXISTS (SELECT 1 FROM gate)'] : []),
        ...(before ? [`(SELECT count(*) FROM ${before.name}) >= 0`] : []),
        ...(previous ? [previous] : []),
      ];
      if (set) return `w${i} AS (${shift(set.sql, offset)}${conditions.length > 0 ? ` AND ${conditions.join(' AND ')}` : ''} RETURNING 1)`;
      const upsert = conditions.length > 0 ? target.upsertIf(conditions.join(' AND ')) : target.upsertSql;
      return `w${i} AS (${shift(upsert, offset)} RETURNING 1)`;
    });
    const after = also.map((a, i) => `a${i} AS (${a.sql})`);
    const withs = [...(gate ? [`gate AS (${gate.condition})`] : []), ...(before ? [before.cte] : []), ...parts, ...after].join(', ');
    if (!gate) return `WITH ${withs} SELECT 1`;
    const notices = [then, ...also].flatMap((t) => (t?.notify ? [`, CASE WHEN EXISTS (SELECT 1 FROM gate) THEN pg_notify(${t.notify}) END`] : []));
    return `WITH ${withs} SELECT EXISTS (SELECT 1 FROM gate) AS held${notices.join('')}`;
  }

  /**
   * `ops` and more in one statement: `tail.ctes` (more WITHs) and `tail.select` (the
   * statement's answer), whose parameters $1… are `tail.params`. Null, with nothing written,
   * when the ops cannot be one statement (see oneStatement): the caller writes them otherwise.
   */
  async writeWith<R extends pg.QueryResultRow>(
    ops: WriteOp[],
    tail: { ctes: string[]; select: string; params: unknown[]; first?: { name: string; cte: string } },
  ): Promise<R | null> {
    if (ops.length === 0 || ops.length > ONE_STATEMENT_MAX || ops.some((op) => 'delete' in op)) return null;
    // the ops' parameters come first, the tail's after them (a WITH's place in the text and its numbers are unrelated)
    const unique = [...new Map(ops.map((op) => [`${op.collection}\u0000${op.id}`, op])).values()];
    const opsParams = unique.reduce((n, op) => n + ('set' in op ? this.setOf(op).params.length : this.handle(op.collection).paramCount), 0);
    const shift = (sql: string) => sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + opsParams}`);
    const first = tail.first && { name: tail.first.name, cte: shift(tail.first.cte) };
    // one op too is a WITH of the statement (the tail's WITHs follow it)
    const statement = this.oneStatement(ops, undefined, first, true);
    if (!statement) return null;
    // made once per shape too (see oneStatement): the writes' text, then the tail's
    const shape = `${statement.sql}\u0001${tail.ctes.join('\u0001')}\u0001${tail.select}`;
    let sql = this.statementTexts.get(shape);
    if (sql === undefined) {
      const writes = statement.sql.slice(0, -' SELECT 1'.length);
      sql = `${writes}${tail.ctes.map((cte) => `, ${shift(cte)}`).join('')} ${shift(tail.select)}`;
      if (this.statementTexts.size < PREPARED_TEXTS) this.statementTexts.set(shape, sql);
    }
    return (await this.query<R>(sql, [...statement.params, ...tail.params], true)).rows[0];
  }

  /**
   * Writes `ops` in one transaction only when `condition` (a statement, run first in the same
   * transaction) answers a row; false, with nothing written, when it answers none. The
   * condition locks what it reads (FOR UPDATE) to hold it true until the commit. `then` and
   * `also` are written with the ops, behind the same condition (Gate).
   */
  async writeIf(condition: string, params: unknown[], ops: WriteOp[], then?: GateThen, also: GateAlso[] = []): Promise<boolean> {
    // upserts alone: the condition and the writes in one statement (its locks held to its end)
    const statement = this.oneStatement(ops, { condition, params, then, also });
    if (statement) return (await this.query<{ held: boolean }>(statement.sql, statement.params, true)).rows[0].held;
    return this.transaction(async (client) => {
      if (!(await client.query(condition, params)).rowCount) return false;
      // the gated DELETE before the writes, as in the one statement (see oneStatement's `before`)
      if (then) await client.query(then.sql, then.params);
      await this.apply(client, ops);
      // the gate held: each reads it as a row
      for (const a of also) await client.query(`WITH gate AS (SELECT 1) ${a.sql}`, a.params);
      for (const t of [then, ...also]) if (t?.notify) await client.query('SELECT pg_notify($1, $2)', t.notify);
      return true;
    });
  }

  private async apply(client: pg.PoolClient, ops: WriteOp[]): Promise<void> {
    for (const op of ops) {
      const target = this.handle(op.collection);
      if ('set' in op) {
        const { sql, params } = this.setOf(op);
        await client.query(sql, params);
      } else if ('delete' in op) await client.query(target.deleteSql, [op.id]);
      else await client.query(target.upsertSql, target.row(op.id, op.value, op.json));
    }
  }

  /** A SetOp as one UPDATE of its record (pgSetOp.ts), its `whileAny` a query of the collection it names. */
  private setOf(op: SetOp): { sql: string; params: unknown[] } {
    const exists = op.whileAny && this.handle(op.whileAny.collection).existsQuery(op.whileAny.where);
    return setStatement(this.handle(op.collection).setTarget, op, exists);
  }

  async flush(): Promise<void> {
    // every acknowledged write is already committed
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1', []);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.indexing;
    await this.pool.end();
  }

  /**
   * Runs a query once pending index creations are done. A database that cannot be reached
   * is the store's `unavailable` refusal (pgConnections.ts), here and in `transaction`.
   */
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[], prepared?: string | true): Promise<pg.QueryResult<R>> {
    await this.ready();
    try {
      // `prepared`: a statement of fixed text sent often, parsed once per connection under
      // this name (true: one made from the text), whose plan PostgreSQL may then keep
      // (planning a statement of several subqueries costs more than its execution)
      const name = prepared === true ? this.statementName(sql) : prepared;
      return await (name ? this.pool.query<R>({ name, text: sql, values: params }) : this.pool.query<R>(sql, params));
    } catch (error) {
      throw asStoreFailure(error);
    }
  }

  /**
   * The name a statement of the run path is prepared under: one per text (a hash of it), so
   * a connection parses and plans each text once and keeps it. At most PREPARED_TEXTS texts
   * are named; past them a statement goes unnamed, so no run of odd writes can make every
   * connection hold statements without bound.
   */
  private statementName(sql: string): string | undefined {
    let name = this.statementNames.get(sql);
    if (name === undefined && this.statementNames.size < PREPARED_TEXTS) {
      name = `ap_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
      this.statementNames.set(sql, name);
    }
    return name;
  }

  /**
   * One document by key. The gets asked in one turn of the microtask queue go in one
   * statement (a scalar subquery each), so reads a caller makes side by side (a run's
   * assistant and thread, under the thread's lock) cost one round trip. `select` is the
   * collection's get with its key in the parameter it is given.
   */
  getDoc<T>(select: (param: string) => string, id: string): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve, reject) => {
      if (!this.gets) {
        this.gets = [];
        queueMicrotask(() => this.sendGets());
      }
      this.gets.push({ select, id, resolve: resolve as (doc: unknown) => void, reject });
    });
  }

  private sendGets(): void {
    const gets = this.gets ?? [];
    this.gets = null;
    for (let at = 0; at < gets.length; at += GETS_PER_STATEMENT) {
      const some = gets.slice(at, at + GETS_PER_STATEMENT);
      const sql = some.length === 1 ? some[0].select('$1') : `SELECT ${some.map((g, i) => `(${g.select(`$${i + 1}`)}) AS d${i}`).join(', ')}`;
      this.query<Record<string, unknown>>(
        sql,
        some.map((g) => g.id),
        true,
      ).then(
        ({ rows }) => some.forEach((g, i) => g.resolve(some.length === 1 ? rows[0]?.doc : (rows[0]?.[`d${i}`] ?? undefined))),
        (error: unknown) => some.forEach((g) => g.reject(error)),
      );
    }
  }

  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw asStoreFailure(error);
    }
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw asStoreFailure(error);
    } finally {
      // a client whose connection failed is not queryable any more, and the pool drops it
      client.release();
    }
  }

  private async ready(): Promise<void> {
    if (this.closed) throw new Error('store is closed');
    await this.indexing;
    if (this.indexFailure) throw this.indexFailure;
  }

  /**
   * An index on one field of one collection, created once per database: a btree on the
   * field's text (with seq, for `where` in insertion order), or a GIN index on the field as
   * jsonb for `contains`.
   */
  private async ensureIndex(collection: string, field: string, kind: 'equality' | 'containment'): Promise<void> {
    // the containment index is registered under its own key beside the field's btree
    const key = kind === 'equality' ? field : `${field} @>`;
    const name = `agentplane_ix_${createHash('sha256').update(`${collection}\u0000${key}`).digest('hex').slice(0, 24)}`;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      const { rowCount } = await client.query('SELECT 1 FROM agentplane_document_indexes WHERE collection = $1 AND field = $2', [collection, key]);
      if (!rowCount) {
        const on = kind === 'equality' ? `((${fieldExpression(field)}), seq)` : `USING gin ((${containerExpression(field)}) jsonb_path_ops)`;
        await client.query(`CREATE INDEX ${name} ON agentplane_documents ${on} WHERE collection = ${pg.escapeLiteral(collection)}`);
        await client.query('INSERT INTO agentplane_document_indexes (collection, field, index_name) VALUES ($1, $2, $3)', [collection, key, name]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}

/** `doc->>'field'`, written exactly as in the index definition so the planner matches them. */
function fieldExpression(field: string): string {
  return `doc->>${pg.escapeLiteral(field)}`;
}

/** `(doc->'field')::jsonb`, as in the containment index definition. */
function containerExpression(field: string): string {
  return `(doc->${pg.escapeLiteral(field)})::jsonb`;
}

/**
 * One collection: its area's table, or its rows of the generic table (scoped by a literal
 * `collection = '…'`, so the planner can match the partial expression indexes). An upsert
 * keeps the row's seq, so updated records keep their place in insertion order.
 */
class PgCollection<T extends object> implements Collection<T> {
  readonly indexed = new Set<string>();
  readonly containable = new Set<string>();
  readonly area: AreaTable | undefined;
  private readonly table: string;
  private readonly key: string;
  /** Conditions every statement starts from (the generic table's collection). */
  private readonly scope: string[];
  readonly upsertSql: string;
  readonly deleteSql: string;
  /** upsertSql writing only when `condition` (an SQL boolean) holds. */
  readonly upsertIf: (condition: string) => string;
  private readonly insertSql: string;
  private readonly getSql: string;
  /** getSql with its key in another parameter (PgStore.getDoc). */
  private readonly getAt: (param: string) => string;
  private readonly getManySql: string;

  constructor(
    readonly name: string,
    private readonly store: PgStore,
  ) {
    this.area = areaTable(name);
    this.table = this.area?.table ?? 'agentplane_documents';
    this.key = this.area?.key ?? 'id';
    this.scope = this.area ? [] : [`collection = ${pg.escapeLiteral(name)}`];
    const columns = this.area ? [this.key, ...this.area.columns.map((c) => c.name), 'doc'] : ['collection', 'id', 'doc'];
    const types = this.area ? ['text', ...this.area.columns.map((c) => c.type), 'json'] : ['text', 'text', 'json'];
    const values = types.map((type, i) => `$${i + 1}::${type}`).join(', ');
    const conflict = this.area ? this.key : 'collection, id';
    const insert = `INSERT INTO ${this.table} (${columns.join(', ')}) VALUES (${values}) ON CONFLICT (${conflict})`;
    const updated = columns.filter((c) => c !== this.key && c !== 'collection' && c !== 'id');
    this.upsertSql = `${insert} DO UPDATE SET ${updated.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
    this.upsertIf = (condition) => this.upsertSql.replace(`VALUES (${values})`, `SELECT ${values} WHERE ${condition}`);
    this.insertSql = `${insert} DO NOTHING`;
    const byId = this.area ? `${this.key} = $1` : `collection = ${pg.escapeLiteral(name)} AND id = $1`;
    this.deleteSql = `DELETE FROM ${this.table} WHERE ${byId}`;
    this.getSql = `SELECT doc FROM ${this.table} WHERE ${byId}`;
    const table = this.table;
    const byKey = (param: string) => (this.area ? `${this.key} = ${param}` : `collection = ${pg.escapeLiteral(name)} AND id = ${param}`);
    this.getAt = (param) => `SELECT doc FROM ${table} WHERE ${byKey(param)}`;
    const byIds = this.area ? `${this.key} = ANY($1::text[])` : `collection = ${pg.escapeLiteral(name)} AND id = ANY($1::text[])`;
    this.getManySql = `SELECT ${this.key} AS id, doc FROM ${this.table} WHERE ${byIds}`;
  }

  /** Where a SetOp finds the record (pgSetOp.ts). */
  get setTarget(): SetTarget {
    return { table: this.table, byId: this.area ? `${this.key} = $1` : `collection = ${pg.escapeLiteral(this.name)} AND id = $1`, area: this.area };
  }

  /** Whether a record matches `where`, as a call of a volatile function (pgSetOp.ts). */
  existsQuery(where: Record<string, string>): ExistsQuery {
    const { where: condition, params } = this.conditions(where, {});
    return existsQuery(
      this.table,
      where,
      condition.replace(/\$(\d+)/g, (_, n: string) => `$1[${n}]`),
      params.map(String),
    );
  }

  /** How many parameters `row` makes. */
  get paramCount(): number {
    return this.area ? this.area.columns.length + 2 : 3;
  }

  /** The statement parameters that store `value` under `id` (see upsertSql); `json`: its text, when the writer made it (PutOp.json). */
  row(id: string, value: object, json?: string): unknown[] {
    const doc = json ?? JSON.stringify(value);
    if (!this.area) return [this.name, id, doc];
    return [id, ...this.area.columns.map((c) => columnParam(c, value as Record<string, unknown>)), doc];
  }

  /** The column an area's `where` or `contains` names; a field the table has no column for is a bug. */
  columnFor(field: string): string {
    const column = this.area && columnOf(this.area, field);
    if (!column) throw new Error(`table ${this.table} has no column for ${this.name}.${field}`);
    return column.name;
  }

  get(id: string): Promise<T | undefined> {
    return this.store.getDoc<T>(this.getAt, id);
  }

  async getMany(ids: string[]): Promise<(T | undefined)[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.store.query<{ id: string; doc: T }>(this.getManySql, [ids]);
    const found = new Map(rows.map((r) => [r.id, r.doc]));
    return ids.map((id) => found.get(id));
  }

  async insert(id: string, value: T): Promise<boolean> {
    const { rowCount } = await this.store.query(this.insertSql, this.row(id, value));
    return rowCount === 1;
  }

  async put(id: string, value: T): Promise<void> {
    await this.store.query(this.upsertSql, this.row(id, value));
  }

  async update(id: string, change: (current: T) => T | undefined): Promise<T | undefined> {
    return this.store.transaction(async (client) => {
      const { rows } = await client.query<{ doc: T }>(`${this.getSql} FOR UPDATE`, [id]);
      const current = rows[0]?.doc;
      if (current === undefined) return undefined;
      const next = change(current);
      if (next === undefined || next === current) return current;
      await client.query(this.upsertSql, this.row(id, next));
      return next;
    });
  }

  async delete(id: string): Promise<boolean> {
    const { rowCount } = await this.store.query(this.deleteSql, [id]);
    return (rowCount ?? 0) > 0;
  }
  async list(options: ListOptions<T> = {}): Promise<T[]> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? Infinity;
    if (limit <= 0) return [];
    if (options.orderBy !== undefined && (options.filter || options.contains))
      throw new Error(`collection ${this.name}: orderBy cannot be combined with filter or contains`);
    if (options.below !== undefined && options.orderBy === undefined) throw new Error(`collection ${this.name}: below needs orderBy`);
    if (!options.filter && !options.contains) {
      const { sql, params } = this.select(options, null);
      params.push(offset);
      let paged = `${sql} OFFSET $${params.length}`;
      if (Number.isFinite(limit)) {
        params.push(limit);
        paged += ` LIMIT $${params.length}`;
      }
      const { rows } = await this.store.query<Row>(paged, params);
      return rows.map((r) => r.doc as T);
    }
    const out: T[] = [];
    let skipped = 0;
    for await (const value of this.scan(options)) {
      if (skipped < offset) {
        skipped += 1;
        continue;
      }
      out.push(value);
      if (out.length >= limit) break;
    }
    return out;
  }

  async count(options: Pick<ListOptions<T>, 'where' | 'filter' | 'contains' | 'fields'> = {}): Promise<number> {
    if (!options.filter && !options.contains) {
      const { where, params } = this.conditions(options.where ?? {}, {});
      const { rows } = await this.store.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.table} WHERE ${where}`, params);
      return Number(rows[0].n);
    }
    let n = 0;
    for await (const _ of this.scan(options)) n += 1;
    return n;
  }

  /** The rows matching `where`, `contains` and `filter`, read in insertion order by keyset in batches. */
  private async *scan(options: ListOptions<T>): AsyncGenerator<T> {
    let after: string | null = null;
    for (;;) {
      const { sql, params } = this.select(options, after);
      params.push(SCAN_BATCH);
      const { rows } = await this.store.query<Row>(`${sql} LIMIT $${params.length}`, params);
      const contains = Object.entries(options.contains ?? {});
      for (const row of rows) {
        const value = row.doc as T;
        // `@>` let through a superset (nested parts, array subsets): the exact test decides
        if (contains.length && !contains.every(([field, wanted]) => containsAll((value as Record<string, unknown>)[field], wanted))) continue;
        if (!options.filter || options.filter(value)) yield value;
      }
      if (rows.length < SCAN_BATCH) return;
      after = rows[rows.length - 1].seq;
    }
  }

  private select(options: ListOptions<T>, after: string | null): { sql: string; params: unknown[] } {
    const { where, params } = this.conditions(options.where ?? {}, options.contains ?? {});
    let sql = `SELECT seq, doc FROM ${this.table} WHERE ${where}`;
    if (after !== null) {
      params.push(after);
      sql += ` AND seq ${options.reverse ? '<' : '>'} $${params.length}`;
    }
    const direction = options.reverse ? 'DESC' : 'ASC';
    // code-unit order, as the embedded store sorts (the column's index is made with it too)
    const column = options.orderBy === undefined ? '' : `${this.area ? this.columnFor(options.orderBy) : fieldExpression(options.orderBy)} COLLATE "C"`;
    if (column && options.below !== undefined) {
      params.push(options.below);
      sql += ` AND ${column} < $${params.length}`;
    }
    const by = column ? `${column} ${direction}, ` : '';
    return { sql: `${sql} ORDER BY ${by}seq ${direction}`, params };
  }

  private conditions(where: Record<string, string>, contains: Record<string, Record<string, unknown>>): { where: string; params: unknown[] } {
    const parts = [...this.scope];
    const params: unknown[] = [];
    for (const [field, value] of Object.entries(where)) {
      params.push(value);
      parts.push(`${this.area ? this.columnFor(field) : fieldExpression(field)} = $${params.length}`);
    }
    for (const [field, wanted] of Object.entries(contains)) {
      // nothing wanted matches every record, a missing field too
      if (Object.keys(wanted).length === 0) continue;
      params.push(JSON.stringify(wanted));
      parts.push(`${this.area ? this.columnFor(field) : containerExpression(field)} @> $${params.length}::jsonb`);
    }
    return { where: parts.length ? parts.join(' AND ') : 'true', params };
  }
}
