// Credentials an operation checks itself against the resource in its path (a listener's
// token, scheme `x-agentplane-verified-by: operation`). The suite learns them from the answers
// that issue them — a link binding `header.<name>` — and sends each with requests to the
// resource it was issued for; a request to any other resource carries the newest one, which
// the server must refuse as it refuses a wrong credential.
import { operationById } from './contract.ts';
import type { Binding } from './generators.ts';
import type { HttpRequest } from './http.ts';
import { securityHeaders, verifiesOwnCredential } from './securitySchemes.ts';

interface Issued {
  /** The path values the credential was issued for (the link's other parameters). */
  resource: Binding;
  value: string;
}

export class CredentialBook {
  private readonly byHeader = new Map<string, Issued[]>();

  /** Keeps what a link bound: `header` is the credential's header, the rest of `binding` the resource. */
  learn(header: string, binding: Binding): void {
    const { [header]: value, ...resource } = binding;
    if (typeof value !== 'string') return;
    const list = (this.byHeader.get(header.toLowerCase()) ?? []).filter((i) => JSON.stringify(i.resource) !== JSON.stringify(resource));
    list.push({ resource, value });
    this.byHeader.set(header.toLowerCase(), list.slice(-24));
  }

  /** The credential headers of `req`'s operation, when it checks its own: the one issued for its resource, else the newest. */
  headersFor(req: HttpRequest): Record<string, string> {
    const op = operationById.get(req.operationId);
    if (!op || !verifiesOwnCredential(op)) return {};
    const headers: Record<string, string> = {};
    for (const header of securityHeaders(op)) {
      const issued = this.byHeader.get(header.toLowerCase()) ?? [];
      const mine = issued.findLast((i) => Object.entries(i.resource).every(([k, v]) => !(k in req.path) || req.path[k] === v));
      const chosen = mine ?? issued.at(-1);
      if (chosen) headers[header] = chosen.value;
    }
    return headers;
  }
}
