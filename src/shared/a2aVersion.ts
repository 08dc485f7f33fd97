// A2A version negotiation (A2A §3.6): the client names `Major.Minor` in the `A2A-Version`
// header or request parameter; absent or empty means 0.3; a patch part is not considered.
// The endpoint serves the versions its card declares for JSON-RPC: 1.0 and 0.3. Shared by the
// A2A handlers and the mock, which answers each version from its own document.

export type A2AVersion = '0.3' | '1.0';

export const SERVED_VERSIONS: readonly A2AVersion[] = ['1.0', '0.3'];

/** The version a request asks for, as sent: the header wins over the request parameter. */
export function requestedVersion(header: string | undefined, query: string | undefined): string {
  return (header ?? query ?? '').trim();
}

/** The served version a request's `A2A-Version` names, or undefined when none is. */
export function negotiate(requested: string): A2AVersion | undefined {
  if (requested === '') return '0.3';
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(requested);
  if (!match) return undefined;
  const version = `${Number(match[1])}.${Number(match[2])}`;
  return (SERVED_VERSIONS as readonly string[]).includes(version) ? (version as A2AVersion) : undefined;
}

/** Cards, as the A2A JS SDK's server serves them: the 0.3 card to 0.x (and to no version), the v1.0 card to anything else. */
export function cardVersion(requested: string): A2AVersion {
  if (requested === '') return '0.3';
  return /^0\.\d+(?:\.\d+)?$/.test(requested) && Number(requested.split('.')[1]) >= 3 ? '0.3' : '1.0';
}
