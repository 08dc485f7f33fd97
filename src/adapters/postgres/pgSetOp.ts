// A SetOp (domain/ports/store.ts) on PostgreSQL: one UPDATE of the record where it stands when
// the statement reaches its row, never a document read before and written back whole. The
// fields go into the stored document in place (agentplane_json_set, migration 12: the other
// fields and the order of every key kept, as json keeps them), with the columns they feed
// (pgTables.ts). `whileAny` is asked of a volatile function (ExistsQuery): it reads
// with a snapshot of its own, taken when it is called. A plain subquery would read with the
// statement's, taken at its start: when a transaction that stored a pending run and its thread
// commits while this UPDATE waits for the thread's row, the UPDATE then writes the thread's new
// version (READ COMMITTED re-evaluates it there) but would still count the runs as they were,
// and settle a thread idle with a run pending on it.
import type { SetOp } from '../../domain/ports/store.ts';
import { fieldsSet } from '../../domain/ports/store.ts';
import { columnParam, type AreaTable } from './pgTables.ts';
import { jsonOfValue } from './pgJsonTexts.ts';

/** Where the record is: its table, the condition that names it by `$1`, its area's columns. */
export interface SetTarget {
  table: string;
  byId: string;
  area: AreaTable | undefined;
}

/**
 * A `whileAny` as a call of a volatile function answering whether a row matches (`call`, its
 * arguments `$1`, `$2`… of `args`): the runs of a thread in a status have a function of their
 * own, its plan kept (agentplane_runs_exist_now, migration 13: ~6-9 µs a call); any other
 * goes through agentplane_exists_now, planned at every call (~70 µs).
 */
export interface ExistsQuery {
  call: string;
  args: unknown[];
}

/** The ExistsQuery for `where` on a table, `condition` naming each value as `$1[1]`, `$1[2]`… */
export function existsQuery(table: string, where: Record<string, string>, condition: string, values: string[]): ExistsQuery {
  const fields = Object.keys(where);
  if (table === 'agentplane_runs' && fields.length === 2 && 'thread_id' in where && 'status' in where)
    return { call: 'agentplane_runs_exist_now($1::text, $2::text)', args: [where.thread_id, where.status] };
  return { call: 'agentplane_exists_now($1::text, $2::text[])', args: [`SELECT EXISTS (SELECT 1 FROM ${table} WHERE ${condition})`, values] };
}

/** The UPDATE for `op` (its parameters numbered from $1) and its parameters; `exists`: its `whileAny` as a query. */
export function setStatement(target: SetTarget, op: SetOp, exists: ExistsQuery | undefined): { sql: string; params: unknown[] } {
  const plain = op.set;
  const matched = fieldsSet(op, true);
  const texts = exists && op.whileAny ? bothTexts(plain, op.whileAny.set) : undefined;
  const params: unknown[] = [op.id, texts?.plain ?? JSON.stringify(plain)];
  const param = (value: unknown, type: string) => `$${params.push(value)}::${type}`;
  const columns = (target.area?.columns ?? []).filter((column) => column.field.split('.')[0] in matched);
  if (!exists) {
    const sets = columns.map((column) => `${column.name} = ${param(columnParam(column, plain), column.type)}`);
    return { sql: `UPDATE ${target.table} SET ${[...sets, 'doc = agentplane_json_set(doc, $2::json)'].join(', ')} WHERE ${target.byId}`, params };
  }
  // asked once for the row, and every value chosen by that one answer: the columns and the
  // document never disagree (the sub-select reads the row's document, so it runs again when
  // READ COMMITTED re-evaluates the row's newer version, and asks again then)
  const either = (otherwise: string, instead: string) => `CASE WHEN asked.waiting THEN ${instead} ELSE ${otherwise} END`;
  const values = columns.map((column) => {
    const top = column.field.split('.')[0];
    const otherwise = top in plain ? param(columnParam(column, plain), column.type) : `${target.table}.${column.name}`;
    return either(otherwise, param(columnParam(column, matched), column.type));
  });
  const doc = `agentplane_json_set(${target.table}.doc, ${either('$2::json', param(texts?.matched ?? JSON.stringify(matched), 'json'))})`;
  const at = params.length;
  params.push(...exists.args);
  const call = exists.call.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + at}`);
  const asked = `(SELECT ${call} AS waiting) asked`;
  const names = [...columns.map((column) => column.name), 'doc'];
  return { sql: `UPDATE ${target.table} SET (${names.join(', ')}) = (SELECT ${[...values, doc].join(', ')} FROM ${asked}) WHERE ${target.byId}`, params };
}

/**
 * JSON.stringify of `plain` and of `{ ...plain, ...over }` (fieldsSet's two answers), each
 * field's value serialised once: a run's end sets the thread's whole `values` in both, and
 * serialising them twice was ~0.2M instructions of a plain run on a long thread. A value
 * serialised before (the run's last `values` event's data, a run worker's values made from their
 * text: pgJsonTexts.ts) is not serialised again.
 */
export function bothTexts(plain: Record<string, unknown>, over: Record<string, unknown>): { plain: string; matched: string } {
  const field = new Map<string, string | undefined>();
  for (const key of Object.keys(plain)) field.set(key, jsonOfValue(plain[key]));
  const merged = { ...plain, ...over };
  return {
    plain: objectText(Object.keys(plain), (key) => field.get(key)),
    matched: objectText(Object.keys(merged), (key) => (Object.hasOwn(over, key) ? jsonOfValue(over[key]) : field.get(key))),
  };
}

/** An object's JSON from its keys in order and each value's JSON (undefined: left out, as JSON.stringify leaves it). */
function objectText(keys: string[], valueText: (key: string) => string | undefined): string {
  let text = '';
  for (const key of keys) {
    const value = valueText(key);
    if (value !== undefined) text += `${text ? ',' : ''}${JSON.stringify(key)}:${value}`;
  }
  return `{${text}}`;
}
