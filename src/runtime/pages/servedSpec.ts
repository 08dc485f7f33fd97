// The specification documents as served at /spec/ (and the console's copies under /docs): the files as written, except that the
// address they give for this server — the spec's default, in `servers` and in examples such
// as agent-card URLs — is the address of the server serving them. A client generated from a
// downloaded document, or a request copied out of one, then reaches this server and not a
// default port it may not listen on.

/** The address the documents under spec/ name for an agentplane server (the default listen address). */
export const SPEC_DEFAULT_BASE = 'http://127.0.0.1:8123';
const DEFAULT_BASE = /http:\/\/127\.0\.0\.1:8123(?![\d])/g;

/** The document's text with the default address replaced by `base` (JSON-escaped in a JSON document). */
export function withServerBase(text: string, base: string, format: 'json' | 'text'): string {
  const url = base.replace(/\/+$/, '');
  const replacement = format === 'json' ? JSON.stringify(url).slice(1, -1) : url;
  return text.replace(DEFAULT_BASE, () => replacement);
}
