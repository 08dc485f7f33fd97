// Which documented outcomes the run exercised: every operationId × documented status, and
// every JSON-RPC method × (result | documented error code). Printed as a table at the end;
// an outcome never exercised fails the suite unless coverage-exceptions.json explains why.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operations, rpc } from './contract.ts';

export interface CoverageException {
  operation: string;
  outcome: string;
  modes?: ('mock' | 'real')[];
  reason: string;
}

const seen = new Map<string, Map<string, number>>();

export const coverage = {
  record(operation: string, outcome: string): void {
    const row = seen.get(operation) ?? new Map<string, number>();
    row.set(outcome, (row.get(outcome) ?? 0) + 1);
    seen.set(operation, row);
  },
  count(operation: string, outcome: string): number {
    return seen.get(operation)?.get(outcome) ?? 0;
  },
  reset(): void {
    seen.clear();
  },
};

/** Every documented outcome: [operation, outcome]. */
export function documentedOutcomes(): [string, string][] {
  const rows: [string, string][] = [];
  for (const op of operations) for (const status of Object.keys(op.responses)) rows.push([op.operationId, status]);
  for (const m of rpc.methods) {
    rows.push([m.name, 'result']);
    for (const e of m.errors) rows.push([m.name, String(e.code)]);
  }
  return rows;
}

export function loadExceptions(): CoverageException[] {
  const file = fileURLToPath(new URL('../coverage-exceptions.json', import.meta.url));
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { exceptions: CoverageException[] }).exceptions;
}

const matches = (pattern: string, value: string) => pattern === '*' || pattern === value || (pattern.endsWith('*') && value.startsWith(pattern.slice(0, -1)));

/** Prints the table; returns the outcomes never exercised and not excused. */
export function coverageReport(mode: 'mock' | 'real', print: (line: string) => void = console.log): { missing: string[]; table: string } {
  const exceptions = loadExceptions().filter((e) => !e.modes || e.modes.includes(mode));
  const lines: string[] = [];
  const missing: string[] = [];
  const byOp = new Map<string, string[]>();
  for (const [op, outcome] of documentedOutcomes()) byOp.set(op, [...(byOp.get(op) ?? []), outcome]);
  const width = Math.max(...[...byOp.keys()].map((k) => k.length));
  lines.push(`conformance coverage (${mode} mode): operation × documented outcome — count, or "-" (excused) / "MISSING"`);
  for (const [op, outcomes] of byOp) {
    const cells = outcomes.map((o) => {
      const n = coverage.count(op, o);
      if (n > 0) return `${o}:${n}`;
      if (exceptions.some((e) => matches(e.operation, op) && matches(e.outcome, o))) return `${o}:-`;
      missing.push(`${op} ${o}`);
      return `${o}:MISSING`;
    });
    const extra = [...(seen.get(op)?.keys() ?? [])].filter((o) => !outcomes.includes(o)).map((o) => `${o}(undocumented):${coverage.count(op, o)}`);
    lines.push(`  ${op.padEnd(width)}  ${[...cells, ...extra].join('  ')}`);
  }
  const table = lines.join('\n');
  print(table);
  return { missing, table };
}
