// The `http.disable_*` switches of the project file (upstream's keys): the operations they
// turn off answer 404, as if absent. Chosen by path, so operations added later follow.
import type { OperationSpec } from '../../contract.ts';

export interface DisableSwitches {
  disable_assistants?: boolean;
  disable_threads?: boolean;
  disable_runs?: boolean;
  disable_store?: boolean;
  disable_meta?: boolean;
  disable_a2a?: boolean;
  disable_mcp?: boolean;
  disable_ui?: boolean;
}

const RULES: [keyof DisableSwitches, (path: string) => boolean][] = [
  ['disable_assistants', (p) => p.startsWith('/assistants')],
  ['disable_runs', (p) => p.startsWith('/runs') || /^\/threads\/\{thread_id\}\/runs/.test(p)],
  ['disable_threads', (p) => p.startsWith('/threads') && !/^\/threads\/\{thread_id\}\/runs/.test(p)],
  ['disable_store', (p) => p.startsWith('/store')],
  ['disable_meta', (p) => p === '/info' || p === '/metrics'],
  ['disable_a2a', (p) => p.startsWith('/a2a/') || ['/.well-known/agent-card.json', '/.well-known/agent.json', '/.well-known/agent-card-jwks.json'].includes(p)],
  ['disable_mcp', (p) => p === '/mcp'],
  ['disable_ui', (p) => p.startsWith('/ui/')],
];

export function disabledOperations(http: DisableSwitches | undefined, operations: readonly OperationSpec[]): Set<string> {
  const off = new Set<string>();
  for (const [key, matches] of RULES) {
    if (!http?.[key]) continue;
    for (const op of operations) if (matches(op.path)) off.add(op.operationId);
  }
  return off;
}
