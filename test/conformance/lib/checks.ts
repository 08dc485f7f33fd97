// What a reply must look like: a documented status, never a 5xx, the documented content
// type and headers, a body that validates against that status's schema.
import type { Operation } from './contract.ts';
import type { HttpResponse } from './http.ts';
import { coverage } from './coverage.ts';

const mediaOf = (ct: string | null) => ct?.split(';')[0].trim().toLowerCase() ?? null;

function firstErrors(errors: unknown): string {
  return JSON.stringify((errors as unknown[] | null | undefined)?.slice(0, 3) ?? []);
}

function summarise(header: string): string {
  try {
    const list = JSON.parse(header) as { location?: unknown[]; message?: string }[];
    const shown = list.slice(0, 3).map((v) => `${(v.location ?? []).join('.')}: ${v.message}`);
    return shown.join('; ') + (list.length > 3 ? ` (and ${list.length - 3} more)` : '');
  } catch {
    return header.slice(0, 300);
  }
}

/** Problems with `res` as an answer of `op`; records the status for the coverage table. */
export function conformanceProblems(op: Operation, res: HttpResponse): string[] {
  if (res.status === 0) return [res.error ?? 'no response'];
  coverage.record(op.operationId, String(res.status));
  const problems: string[] = [];
  // a validation proxy in between (Prism) reports what it found in this header
  const proxied = res.headers.get('sl-violations');
  if (proxied) problems.push(`the validation proxy reports violations: ${summarise(proxied)}`);
  if (res.status >= 500) problems.push(`server error ${res.status}`);
  const spec = op.responses[String(res.status)];
  if (!spec) {
    problems.push(`status ${res.status} is not documented for ${op.operationId} (documented: ${Object.keys(op.responses).join(', ')})`);
    return problems;
  }
  if (res.error) problems.push(res.error);
  const media = mediaOf(res.contentType);
  const documented = Object.keys(spec.content);
  if (documented.length === 0) {
    if (res.text.length > 0) problems.push(`status ${res.status} is documented without a body, got ${JSON.stringify(res.text.slice(0, 80))}`);
  } else if (!media || !documented.includes(media)) {
    problems.push(`content type ${res.contentType ?? '(none)'} is not documented for ${res.status} (documented: ${documented.join(', ')})`);
  } else if (media === 'application/json' && spec.validator && res.json !== undefined) {
    const validate = spec.validator;
    if (!validate(structuredClone(res.json))) problems.push(`body does not match the ${res.status} schema: ${firstErrors(validate.errors)}`);
  } else if (media === 'text/event-stream') {
    for (const e of res.events ?? []) {
      if (e.data === '') continue;
      try {
        JSON.parse(e.data);
      } catch {
        problems.push(`event ${e.event ?? 'message'} carries data that is not JSON: ${e.data.slice(0, 80)}`);
        break;
      }
    }
  }
  for (const [name, h] of Object.entries(spec.headers)) {
    const value = res.headers.get(name);
    if (value === null && h.required) problems.push(`required header ${name} is missing`);
    if (value !== null && typeof h.schema?.pattern === 'string' && !new RegExp(h.schema.pattern).test(value))
      problems.push(`header ${name}: ${JSON.stringify(value)} does not match ${h.schema.pattern}`);
  }
  return problems;
}

/** Problems with `res` as the answer to a request the spec rejects with `expected` (422, or 415 for a body's media type). */
export function rejectionProblems(op: Operation, res: HttpResponse, expected = 422): string[] {
  const problems = conformanceProblems(op, res);
  if (res.status >= 200 && res.status < 300) problems.push(`an invalid request was accepted with ${res.status}`);
  else if (res.status !== expected && res.status < 500 && res.status !== 0) problems.push(`an invalid request was answered ${res.status}, not ${expected}`);
  return problems;
}
