// Matches a request to an operation. The operation table is generated from openapi-backend's
// flattening of the bundled document (scripts/generate.ts); its path templates are compiled
// once at start-up, so a request costs one map look-up or a handful of precompiled regexes.
import type { OperationSpec } from '../../contract.ts';

export type RouteMatch =
  { kind: 'operation'; operation: OperationSpec; pathParams: Record<string, string> } | { kind: 'not-found' } | { kind: 'method-not-allowed'; allow: string[] };

interface CompiledRoute {
  operation: OperationSpec;
  regex: RegExp;
  names: string[];
  specificity: number;
  /** How many `/`-separated segments the template has (a parameter never spans two). */
  segments: number;
  /**
   * The template up to its first parameter (`/v2/deployments/` of `/v2/deployments/{id}`): a
   * path that does not begin with it cannot match, so its regex is not run. The first segment
   * alone let every route under `/v2/` with as many segments be tried by regex.
   */
  prefix: string;
}

export class Router {
  /** Per method, the operations whose path has no parameter, by path (a key of its own per request, `GET /ok`, was a string made and hashed whole on every request). */
  private readonly literal = new Map<string, Map<string, OperationSpec>>();
  private readonly templated: CompiledRoute[] = [];
  /** Per method, then per segment count: the only routes a path can match, most specific first. */
  private readonly templatedByMethod = new Map<string, Map<number, CompiledRoute[]>>();
  private readonly methodsByPath = new Map<string, Set<string>>();
  private readonly routed = new Set<string>();

  /**
   * @param documents bundled OpenAPI documents with their operation tables
   * @param disabled operationIds switched off by configuration (they answer 404)
   */
  constructor(documents: { operations: readonly OperationSpec[] }[], disabled: ReadonlySet<string> = new Set()) {
    // openapi-backend's router used to list them: its import alone was ~15% of start-up
    for (const { operations } of documents) {
      for (const operation of operations) if (!disabled.has(operation.operationId)) this.add(operation);
    }
    this.templated.sort((a, b) => b.specificity - a.specificity);
    for (const route of this.templated) {
      let bySegments = this.templatedByMethod.get(route.operation.method);
      if (!bySegments) this.templatedByMethod.set(route.operation.method, (bySegments = new Map()));
      const list = bySegments.get(route.segments) ?? [];
      list.push(route);
      bySegments.set(route.segments, list);
    }
  }

  private add(operation: OperationSpec): void {
    this.routed.add(operation.operationId);
    const names: string[] = [];
    const pattern = operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    let methods = this.methodsByPath.get(pattern);
    if (!methods) this.methodsByPath.set(pattern, (methods = new Set()));
    methods.add(operation.method);
    if (names.length === 0) {
      let byPath = this.literal.get(operation.method);
      if (!byPath) this.literal.set(operation.method, (byPath = new Map()));
      byPath.set(operation.path, operation);
    }
    this.templated.push({
      operation,
      regex: new RegExp(`^${pattern}$`),
      names,
      specificity: operation.path.replace(/\{[^}]+\}/g, '').length * 10 - names.length,
      segments: segmentCount(operation.path),
      prefix: names.length === 0 ? operation.path : operation.path.slice(0, operation.path.indexOf('{')),
    });
  }

  /** Whether an operation is routed (not switched off by configuration). */
  serves(operationId: string): boolean {
    return this.routed.has(operationId);
  }

  match(method: string, rawPath: string): RouteMatch {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const exact = this.literal.get(method)?.get(path);
    if (exact) return { kind: 'operation', operation: exact, pathParams: {} };
    // only this method's routes with as many segments are tried on the way to a match (the
    // literal prefix compared before any regex runs); the others matter for a 405
    for (const route of this.templatedByMethod.get(method)?.get(segmentCount(path)) ?? []) {
      if (!path.startsWith(route.prefix)) continue;
      const m = route.regex.exec(path);
      if (!m) continue;
      const pathParams: Record<string, string> = {};
      route.names.forEach((name, i) => (pathParams[name] = safeDecode(m[i + 1])));
      return { kind: 'operation', operation: route.operation, pathParams };
    }
    const allow = new Set<string>();
    for (const route of this.templated) if (route.operation.method !== method && route.regex.test(path)) allow.add(route.operation.method);
    if (allow.size > 0) return { kind: 'method-not-allowed', allow: [...allow].sort() };
    return { kind: 'not-found' };
  }
}

/** How many `/` the path has: found by indexOf (a builtin's search), not read a character at a time (~1,400 instructions for a 52-character path). */
function segmentCount(path: string): number {
  let count = 0;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) count += 1;
  return count;
}

function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
