// What a server holds of the kinds a client makes most (assistants, threads, crons,
// deployments), as sorted ids: compared before and after something that must leave no trace.
type Api = (pathname: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

async function ids(api: Api, pathname: string, field: string, init: { method?: string; json?: unknown } = {}): Promise<string[]> {
  const body = (await (await api(pathname, init)).json()) as unknown;
  const items = (Array.isArray(body) ? body : (body as { resources: unknown[] }).resources) as Record<string, string>[];
  return items.map((i) => i[field]).sort();
}

export async function holdings(api: Api): Promise<Record<'assistants' | 'threads' | 'crons' | 'deployments', string[]>> {
  return {
    assistants: await ids(api, '/assistants/search', 'assistant_id', { method: 'POST', json: { limit: 1000 } }),
    threads: await ids(api, '/threads/search', 'thread_id', { method: 'POST', json: { limit: 1000 } }),
    crons: await ids(api, '/runs/crons/search', 'cron_id', { method: 'POST', json: { limit: 1000 } }),
    deployments: await ids(api, '/v2/deployments?limit=100', 'id'),
  };
}
