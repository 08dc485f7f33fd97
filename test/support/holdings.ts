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

/**
 * The records of the given items as a client reads them (each assistant, thread with its
 * state, cron and deployment), for checking they were left untouched, not only still there.
 */
export async function records(api: Api, items: { assistants: string[]; threads: string[]; crons: string[]; deployments: string[] }): Promise<unknown> {
  const read = async (pathname: string) => {
    const res = await api(pathname);
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const crons = (await (await api('/runs/crons/search', { method: 'POST', json: { limit: 1000 } })).json()) as { cron_id: string }[];
  return {
    assistants: await Promise.all(items.assistants.map((id) => read(`/assistants/${id}`))),
    threads: await Promise.all(items.threads.map(async (id) => [await read(`/threads/${id}`), await read(`/threads/${id}/state`)])),
    crons: crons.filter((c) => items.crons.includes(c.cron_id)),
    deployments: await Promise.all(items.deployments.map((id) => read(`/v2/deployments/${id}`))),
  };
}
