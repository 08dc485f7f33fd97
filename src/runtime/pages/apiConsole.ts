// What the API console at /docs works from. The documents under /spec/ are the contract as
// written (their `servers` name the default address, their parameters carry examples);
// the console gets copies made for trying calls against this server: one server, the one
// that served the page (a relative URL), and list filters without pre-filled examples, so
// "Try it out" lists what exists instead of an empty page, and create examples that create
// anew on every Execute instead of answering 409 the second time. The A2A OpenRPC document, which
// Swagger UI cannot show, gets a generated page.
import { loadDocument as loadA2A } from '../../../generated/a2a/document.gen.js';

type Json = any;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * What a create example must not repeat, by operationId. An id the caller may choose is left
 * out (the server makes a new one); a value that must be new and has no default ends with
 * UNIQUE_MARKER, which the console replaces with a fresh suffix in every request it sends
 * (the requestInterceptor of docs.ts), so the example still shows what a value looks like.
 */
const CHOSEN_IDS: Record<string, string[]> = { createThread: ['thread_id'], createAssistant: ['assistant_id'] };
const UNIQUE_VALUES: Record<string, string[]> = { createDeployment: ['name'], createAuthProvider: ['provider_id'] };
export const UNIQUE_MARKER = '-{unique}';

/** An operation that lists or counts by filters (its body is a filter set, not a resource). */
const isFilterOperation = (operation: Json) => /^(search|count|list)/i.test(operation.operationId ?? '');

export function consoleDocument(document: Json): Json {
  const copy = structuredClone(document);
  copy.servers = [{ url: '/', description: 'this agentplane server (the one that served this page)' }];
  const resolveParam = (p: Json) =>
    p?.$ref
      ? p.$ref
          .slice(2)
          .split('/')
          .reduce((n: Json, k: string) => n?.[k], copy)
      : p;
  for (const item of Object.values<Json>(copy.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // inline copies of query parameters without their examples: an example filter
      // (name_contains=my-agent, status=DEPLOYED) would be sent as typed in
      operation.parameters = (operation.parameters ?? []).map((p0: Json) => {
        const p = resolveParam(p0);
        if (p?.in !== 'query') return p0;
        const { example: _example, examples: _examples, ...rest } = p;
        return { ...rest, schema: p.schema && stripExamples(resolveParam(p.schema)) };
      });
      if (isFilterOperation(operation) && operation.requestBody) {
        const body = resolveParam(operation.requestBody);
        const content: Json = {};
        for (const [type, media] of Object.entries<Json>(body.content ?? {})) content[type] = { schema: media.schema, example: {} };
        operation.requestBody = { ...body, content };
      } else if (operation.requestBody && (CHOSEN_IDS[operation.operationId] || UNIQUE_VALUES[operation.operationId])) {
        operation.requestBody = createExamples(
          resolveParam(operation.requestBody),
          CHOSEN_IDS[operation.operationId] ?? [],
          UNIQUE_VALUES[operation.operationId] ?? [],
        );
      }
    }
  }
  return copy;
}

/** A copy of a create body whose examples leave out `omit` and make `unique` values unique per request. */
function createExamples(body: Json, omit: string[], unique: string[]): Json {
  const rewrite = (example: Json) => {
    if (!example || typeof example !== 'object' || Array.isArray(example)) return example;
    const copy = { ...example };
    for (const key of omit) delete copy[key];
    for (const key of unique) if (typeof copy[key] === 'string') copy[key] += UNIQUE_MARKER;
    return copy;
  };
  const content: Json = {};
  for (const [type, media] of Object.entries<Json>(body.content ?? {})) {
    content[type] = { ...media };
    if ('example' in media) content[type].example = rewrite(media.example);
    if (media.examples)
      content[type].examples = Object.fromEntries(Object.entries<Json>(media.examples).map(([name, e]) => [name, { ...e, value: rewrite(e.value) }]));
  }
  return { ...body, content };
}

function stripExamples(schema: Json): Json {
  if (!schema || typeof schema !== 'object') return schema;
  const { example: _example, examples: _examples, ...rest } = schema;
  return rest;
}

/** The console's documents' file names. */
export const CONSOLE_DOCUMENTS = ['control-plane.json', 'agent-server.json'] as const;

let documents: Promise<Record<string, string>> | undefined;
/**
 * The console's documents by file name, as JSON text (built once). The OpenAPI documents' modules
 * are imported here, at the console's first read, not by the start (api.ts: loadApiDocuments).
 */
export function consoleDocuments(): Promise<Record<string, string>> {
  documents ??= Promise.all([import('../../../generated/control-plane/document.gen.js'), import('../../../generated/agent-server/document.gen.js')]).then(
    ([controlPlane, agentServer]) => ({
      'control-plane.json': JSON.stringify(consoleDocument(controlPlane.loadDocument())),
      'agent-server.json': JSON.stringify(consoleDocument(agentServer.loadDocument())),
    }),
  );
  return documents;
}

const escape = (text: unknown) => String(text ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const json = (value: unknown) => `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`;

let a2aPage: string | undefined;
/** The A2A OpenRPC document as one browsable page: every method, its params, result, errors and examples. */
export function openRpcPage(): string {
  if (a2aPage) return a2aPage;
  const doc = loadA2A() as Json;
  const resolve = (node: Json): Json => {
    let cur = node;
    while (cur?.$ref)
      cur = cur.$ref
        .slice(2)
        .split('/')
        .reduce((n: Json, k: string) => n?.[k], doc);
    return cur;
  };
  const methods = (doc.methods as Json[]).map(resolve);
  const section = (m: Json) => `
<section id="${escape(m.name)}">
  <h2><code>${escape(m.name)}</code>${m['x-streaming'] ? ' <small>(streams: text/event-stream)</small>' : ''}</h2>
  <p>${escape(m.summary)}</p>
  ${m.description ? `<p>${escape(m.description)}</p>` : ''}
  <h3>Params</h3>
  <table><tr><th>name</th><th>required</th><th>schema</th></tr>
  ${(m.params ?? [])
    .map(resolve)
    .map((p: Json) => `<tr><td><code>${escape(p.name)}</code></td><td>${p.required ? 'yes' : 'no'}</td><td>${json(resolve(p.schema))}</td></tr>`)
    .join('\n')}
  </table>
  <h3>Result</h3>${json(resolve(resolve(m.result)?.schema))}
  <h3>Errors</h3>
  <table><tr><th>code</th><th>message</th></tr>
  ${(m.errors ?? [])
    .map(resolve)
    .map((e: Json) => `<tr><td>${escape(e.code)}</td><td>${escape(e.message)}</td></tr>`)
    .join('\n')}
  </table>
  ${(m.examples ?? [])
    .map(resolve)
    .map(
      (e: Json) =>
        `<h3>Example: ${escape(e.name)}</h3><p>params</p>${json(Object.fromEntries((e.params ?? []).map(resolve).map((p: Json) => [p.name, p.value])))}<p>result</p>${json(resolve(e.result)?.value)}`,
    )
    .join('\n')}
</section>`;
  a2aPage = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escape(doc.info.title)} — A2A (OpenRPC)</title>
  <style>
    body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem 2rem; color: #1b1b1b; }
    pre { background: #f5f5f7; padding: .5rem; overflow: auto; max-height: 24rem; font-size: 12px; }
    table { border-collapse: collapse; width: 100%; } td, th { border: 1px solid #ddd; padding: .25rem .5rem; vertical-align: top; text-align: left; }
    section { border-top: 2px solid #eee; margin-top: 2rem; }
  </style>
</head>
<body>
  <p><a href="/docs">← the HTTP APIs (control plane, agent server)</a> · <a href="/spec/a2a.openrpc.json">a2a.openrpc.json</a></p>
  <h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1>
  <p>${escape(doc.info.description)}</p>
  <p>JSON-RPC 2.0 over <code>POST /a2a/{assistant_id}</code> on this server. Methods:</p>
  <ul>${methods.map((m) => `<li><a href="#${escape(m.name)}"><code>${escape(m.name)}</code></a> — ${escape(m.summary)}</li>`).join('')}</ul>
  ${methods.map(section).join('\n')}
</body>
</html>
`;
  return a2aPage;
}
