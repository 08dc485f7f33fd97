// The listener's calls to its control plane, authenticated with an API key of the tenant
// whose deployments it reconciles (as any client of the control plane).
import type {
  Listener,
  ListenerCreate,
  ListenerHeartbeat,
  ListenerList,
  RevisionLogReport,
  RevisionStatusReport,
} from '../../generated/control-plane/types.gen.ts';

export class ControlPlaneError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    what: string,
  ) {
    super(`${what}: the control plane answered ${status}${detail ? ` ${detail}` : ''}`);
  }
}

export interface ControlPlaneClientOptions {
  url: string;
  apiKey: string;
  /** For a key that spans several tenants. */
  tenantId?: string;
  /** Time limit of each call. */
  timeoutMs?: number;
}

export class ControlPlaneClient {
  private readonly base: string;

  constructor(private readonly options: ControlPlaneClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  createListener(body: ListenerCreate): Promise<Listener> {
    return this.call('POST', '/v2/listeners', body);
  }

  getListener(id: string): Promise<Listener> {
    return this.call('GET', `/v2/listeners/${id}`);
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

  heartbeat(id: string): Promise<ListenerHeartbeat> {
    return this.call('POST', `/v2/listeners/${id}/heartbeat`);
  }

  async reportStatus(id: string, revisionId: string, report: RevisionStatusReport): Promise<void> {
    await this.call('POST', `/v2/listeners/${id}/revisions/${revisionId}/status`, report);
  }

  async reportLogs(id: string, revisionId: string, report: RevisionLogReport): Promise<void> {
    await this.call('POST', `/v2/listeners/${id}/revisions/${revisionId}/logs`, report);
  }

  async reportRemoved(id: string, deploymentId: string): Promise<void> {
    await this.call('POST', `/v2/listeners/${id}/deployments/${deploymentId}/removed`);
  }

  private async call<T>(method: string, pathname: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'x-api-key': this.options.apiKey };
    if (this.options.tenantId) headers['x-tenant-id'] = this.options.tenantId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.base + pathname, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
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
}
