// The `filter` of a store search: every key must match the item's value, either by equality
// or through the comparison operators LangGraph's own stores accept ($eq, $ne, $gt, $gte,
// $lt, $lte). Only own properties count, so `{"__proto__": …}` never matches by inheritance.
import { deepEqual } from '../agent/search.ts';

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte']);

export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown> | null | undefined): boolean {
  if (!filter) return true;
  return Object.keys(filter).every((key) => {
    const actual = Object.hasOwn(value, key) ? value[key] : undefined;
    const wanted = filter[key];
    if (isOperatorObject(wanted)) return Object.entries(wanted).every(([op, operand]) => compare(op, actual, operand));
    return deepEqual(actual, wanted);
  });
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => OPERATORS.has(k));
}

function compare(op: string, actual: unknown, operand: unknown): boolean {
  switch (op) {
    case '$eq':
      return deepEqual(actual, operand);
    case '$ne':
      return !deepEqual(actual, operand);
    default: {
      if (typeof actual !== typeof operand || (typeof actual !== 'number' && typeof actual !== 'string')) return false;
      const a = actual as number | string;
      const b = operand as number | string;
      return op === '$gt' ? a > b : op === '$gte' ? a >= b : op === '$lt' ? a < b : a <= b;
    }
  }
}
