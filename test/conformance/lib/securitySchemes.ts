// What an operation's security schemes say of its credentials, apart from the auth probes so
// that the credential book can read it without importing the suite around it.
import type { Operation } from './contract.ts';

type Scheme = { type?: string; in?: string; name?: string; 'x-agentplane-verified-by'?: string };
const schemesOf = (op: Operation) => (op.doc.components?.securitySchemes ?? {}) as Record<string, Scheme>;

/** Header names of the apiKey schemes an operation's security names (a link may bind them). */
export function securityHeaders(op: Operation): string[] {
  const schemes = schemesOf(op);
  return op.security.flatMap((r) =>
    Object.keys(r)
      .map((name) => schemes[name])
      .filter((s) => s?.type === 'apiKey' && s.in === 'header')
      .map((s) => s!.name!),
  );
}

/** Every requirement is a credential the operation checks against its own resource (`x-agentplane-verified-by: operation`). */
export function verifiesOwnCredential(op: Operation): boolean {
  const schemes = schemesOf(op);
  return (
    op.security.length > 0 &&
    op.security.every((r) => Object.keys(r).length > 0 && Object.keys(r).every((name) => schemes[name]?.['x-agentplane-verified-by'] === 'operation'))
  );
}
