// The listener's calls to its control plane. Two credentials, two clients: an API key of the
// tenant manages the listener resource (registers it, issues it a new token), and the
// listener's own token is all it needs afterwards — its heartbeat (which carries its
// deployments' secrets) and its reports accept nothing else.
import type {
  Listener,
  ListenerCreate,
  ListenerHeartbeat,
  ListenerList,
  ListenerWithToken,
  RevisionLogReport,
  RevisionStatusReport,
} from '../../../generated/control-plane/types.gen.ts';
import { ReportRefused, type ListenerReports } from '../../domain/ports/listenerReports.ts';

/** A refusal: its status and the answer's detail (a 429, the listener's log budget, is one to send again later). */
export class ControlPlaneError extends ReportRefused {
  constructor(
    readonly status: number,
    readonly detail: string,
    what: string,
  ) {
    super(`${what}: the control plane answered ${status}${detail ? ` ${detail}` : ''}`, status === 429);
  }
}

interface Connection {
  url: string;
  /** Time limit of each call. */
  timeoutMs?: number;
}

export interface ControlPlaneClientOptions extends Connection {
  apiKey: string;
  /** For a key that spans several tenants. */
  tenantId?: string;
}

/** One call; a refusal throws a ControlPlaneError carrying the status and the answer's detail. */
async function call<T>(connection: Connection, credentials: Record<string, string>, method: string, pathname: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { ...credentials };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(connection.url.replace(/\/+$/, '') + pathname, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(connection.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  if (!res.ok) {
    let detail = text;
    try {
      const parsed = JSON.parse(text) as { detail?: unknown };
      detail = typeof parsed.detail === 'string' ? parsed.detail : JSON.stringify(parsed.detail ?? parsed);
    } catch {
      // not JSON: the text as it came
    }
    throw new ControlPlaneError(res.status, detail, `${method} ${pathname}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The tenant's side: the listener resource, with an API key. */
export class ControlPlaneClient {
  constructor(private readonly options: ControlPlaneClientOptions) {}

  createListener(body: ListenerCreate): Promise<ListenerWithToken> {
    return this.call('POST', '/v2/listeners', body);
  }

  getListener(id: string): Promise<Listener> {
    return this.call('GET', `/v2/listeners/${id}`);
  }

  /** A new token for the listener; the one it had stops working. */
  rotateToken(id: string): Promise<ListenerWithToken> {
    return this.call('POST', `/v2/listeners/${id}/token`);
  }

  /** The tenant's listener with this compute id, if any (every page is looked at). */
  async findListener(computeId: string): Promise<Listener | undefined> {
    for (let offset = 0; ;) {
      const page = await this.call<ListenerList>('GET', `/v2/listeners?limit=100&offset=${offset}`);
      const found = page.resources.find((l) => l.compute_id === computeId);
      if (found || page.resources.length === 0) return found;
      offset = page.offset;
    }
  }

  private call<T>(method: string, pathname: string, body?: unknown): Promise<T> {
    const credentials: Record<string, string> = { 'x-api-key': this.options.apiKey };
    if (this.options.tenantId) credentials['x-tenant-id'] = this.options.tenantId;
    return call(this.options, credentials, method, pathname, body);
  }
}

/** The listener's side: what it does as listener `id`, with its own token. */
export class ListenerClient implements ListenerReports {
  constructor(
    private readonly connection: Connection,
    readonly id: string,
    private readonly token: string,
  ) {}

  heartbeat(): Promise<ListenerHeartbeat> {
    return this.call('POST', `/v2/listeners/${this.id}/heartbeat`);
  }

  async reportStatus(revisionId: string, report: RevisionStatusReport): Promise<void> {
    await this.call('POST', `/v2/listeners/${this.id}/revisions/${revisionId}/status`, report);
  }

  async reportLogs(revisionId: string, report: RevisionLogReport): Promise<void> {
    await this.call('POST', `/v2/listeners/${this.id}/revisions/${revisionId}/logs`, report);
  }

  async reportRemoved(deploymentId: string): Promise<void> {
    await this.call('POST', `/v2/listeners/${this.id}/deployments/${deploymentId}/removed`);
  }

  private call<T>(method: string, pathname: string, body?: unknown): Promise<T> {
    return call(this.connection, { 'x-listener-token': this.token }, method, pathname, body);
  }
}
