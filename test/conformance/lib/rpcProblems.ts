// What is wrong with an answer of a JSON-RPC endpoint: the HTTP answer against the spec, then
// each JSON-RPC response it carries against the method's OpenRPC description. Apart from
// rpc.ts (the properties), because seeding the resource pool (links.ts) checks answers too.
import { conformanceProblems } from './checks.ts';
import type { Operation, RpcMethod } from './contract.ts';
import { coverage } from './coverage.ts';
import type { HttpResponse } from './http.ts';

/** JSON-RPC responses carried by an answer: the JSON body, or one per SSE event. */
function framesOf(res: HttpResponse): { frames: any[]; problems: string[] } {
  if (res.events) {
    const frames: any[] = [];
    for (const e of res.events) {
      try {
        frames.push(JSON.parse(e.data));
      } catch {
        return { frames, problems: [`SSE event data is not JSON: ${e.data.slice(0, 80)}`] };
      }
    }
    return { frames, problems: frames.length ? [] : ['the event stream carried no JSON-RPC response'] };
  }
  return { frames: res.json === undefined ? [] : [res.json], problems: [] };
}

/** Checks a JSON-RPC answer; `expect` limits the acceptable outcomes ('result' or error codes). */
export function rpcProblems(op: Operation, m: RpcMethod | undefined, sentId: unknown, res: HttpResponse, expect?: (string | number)[]): string[] {
  const problems = conformanceProblems(op, res);
  if (res.status !== 200 || problems.length) return problems;
  const { frames, problems: frameProblems } = framesOf(res);
  problems.push(...frameProblems);
  for (const f of frames) {
    const envelopeOk = f && f.jsonrpc === '2.0' && 'result' in f !== 'error' in f;
    if (!envelopeOk) {
      problems.push(`not a JSON-RPC 2.0 response: ${JSON.stringify(f).slice(0, 160)}`);
      continue;
    }
    if (sentId !== undefined && f.id !== sentId) problems.push(`response id ${JSON.stringify(f.id)} does not echo the request id ${JSON.stringify(sentId)}`);
    if ('result' in f) {
      if (m) coverage.record(m.name, 'result');
      if (expect && !expect.includes('result')) problems.push(`expected an error (${expect.join(' or ')}), got a result`);
      const validate = m?.validators.result;
      if (validate && !validate(structuredClone(f.result)))
        problems.push(`${m!.name} result does not match its schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
    } else {
      const code = f.error?.code;
      if (typeof code !== 'number' || typeof f.error?.message !== 'string') problems.push(`malformed JSON-RPC error ${JSON.stringify(f.error)}`);
      if (m) coverage.record(m.name, String(code));
      if (expect && !expect.includes(code)) problems.push(`expected ${expect.join(' or ')}, got error ${code} ${JSON.stringify(f.error?.message)}`);
      else if (!expect && m && !m.errors.some((e) => e.code === code))
        problems.push(`error ${code} is not documented for ${m.name} (documented: ${m.errors.map((e) => e.code).join(', ')})`);
    }
  }
  return problems;
}
