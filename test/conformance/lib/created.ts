// What the suite made on a server it did not start (`conformance --url`), so it leaves no
// trace: every assistant, thread, cron and deployment a request of its own created is noted
// from the answer that created it, each cron is paused as soon as it exists (its schedule may
// fall due during the run), and at the end — passed, failed or interrupted — all of them are
// deleted, crons first. Only what its own answers named is touched: a server in use keeps
// what its users made meanwhile.
import { operationById } from './contract.ts';
import { requestFor, send, type HttpRequest, type HttpResponse, type Target } from './http.ts';

type Kind = 'cron' | 'thread' | 'assistant' | 'deployment';

/** The operations that create one resource, and where its answer names it. */
const CREATING: Record<string, { kind: Kind; id: string }> = {
  createAssistant: { kind: 'assistant', id: 'assistant_id' },
  createThread: { kind: 'thread', id: 'thread_id' },
  copyThread: { kind: 'thread', id: 'thread_id' },
  createCron: { kind: 'cron', id: 'cron_id' },
  createThreadCron: { kind: 'cron', id: 'cron_id' },
  createDeployment: { kind: 'deployment', id: 'id' },
};

/** How each kind is deleted (operationId, its path parameter), in the order they go. */
const DELETING: [Kind, string, string][] = [
  ['cron', 'deleteCron', 'cron_id'],
  ['thread', 'deleteThread', 'thread_id'],
  ['assistant', 'deleteAssistant', 'assistant_id'],
  ['deployment', 'deleteDeployment', 'deployment_id'],
];

const idIn = (json: unknown, field: string): string | undefined => {
  const value = json && typeof json === 'object' ? (json as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' && value ? value : undefined;
};

export class CreatedResources {
  private readonly made = new Map<Kind, Set<string>>(DELETING.map(([kind]) => [kind, new Set<string>()]));

  /** Threads there before the suite started: never deleted, whatever the suite did to them. */
  private readonly spared = new Set<string>();

  /**
   * A2A tasks its answers named. A context named by a free string is a thread whose id the client
   * never sees (the server derives it), so such threads are found at the end by the task id the
   * server writes into their metadata (`a2a_task_id`).
   */
  private readonly a2aTasks = new Set<string>();

  /** Notes the threads the server held before (a server in use keeps its users' threads). */
  async spareExisting(target: Target): Promise<void> {
    const search = operationById.get('searchThreads');
    if (!search) return;
    for (let offset = 0; ; offset += 1000) {
      const res = await send({ ...target, onAnswer: undefined }, requestFor(search, { body: { kind: 'json', value: { limit: 1000, offset } } }));
      const page = Array.isArray(res.json) ? (res.json as unknown[]) : [];
      for (const thread of page) {
        const id = idIn(thread, 'thread_id');
        if (id) this.spared.add(id);
      }
      if (page.length < 1000) return;
    }
  }

  /** Notes what an answer created (Target.onAnswer); a cron is paused at once. */
  async note(target: Target, req: HttpRequest, res: HttpResponse): Promise<void> {
    if (res.status < 200 || res.status >= 300 || req.method === 'GET') return;
    // threads made on the way: by a run or a command on a thread id the suite made up
    // (if_not_exists), a stateless run that kept its thread, an A2A message (its context)
    for (const id of threadsNamed(req, res)) if (!this.spared.has(id)) this.made.get('thread')!.add(id);
    for (const answer of [res.json, ...(res.events ?? []).map((e) => parsed(e.data))]) collectTaskIds(answer, this.a2aTasks, 0);
    const creating = CREATING[req.operationId];
    if (!creating) return;
    const id = idIn(res.json, creating.id);
    if (!id) return;
    this.made.get(creating.kind)!.add(id);
    if (creating.kind === 'cron' && (res.json as { enabled?: unknown }).enabled !== false) {
      const update = operationById.get('updateCron');
      if (update) await send(target, requestFor(update, { path: { cron_id: id }, body: { kind: 'json', value: { enabled: false } } }));
    }
  }

  /** Adds the threads of the A2A tasks its answers named (found by their metadata) to what is deleted. */
  private async findA2AThreads(target: Target): Promise<void> {
    const search = operationById.get('searchThreads');
    if (!search) return;
    for (const taskId of this.a2aTasks) {
      const body = { kind: 'json' as const, value: { metadata: { a2a_task_id: taskId }, limit: 100 } };
      const res = await send({ ...target, onAnswer: undefined }, requestFor(search, { body }));
      for (const thread of Array.isArray(res.json) ? (res.json as unknown[]) : []) {
        const id = idIn(thread, 'thread_id');
        if (id && !this.spared.has(id)) this.made.get('thread')!.add(id);
      }
    }
  }

  /** How many of each kind are still to delete. */
  counts(): Record<Kind, number> {
    return Object.fromEntries([...this.made].map(([kind, ids]) => [kind, ids.size])) as Record<Kind, number>;
  }

  /** Deletes everything noted (crons first, so none fires on a thread going away); what a deletion could not remove is named. */
  async deleteAll(target: Target): Promise<string[]> {
    const left: string[] = [];
    await this.findA2AThreads(target);
    for (const [kind, operationId, param] of DELETING) {
      const op = operationById.get(operationId);
      const ids = this.made.get(kind)!;
      for (const id of [...ids]) {
        const res = op ? await send({ ...target, onAnswer: undefined }, requestFor(op, { path: { [param]: id } })) : undefined;
        // gone already (deleted by the suite itself, or a stateless run's thread) is as good
        if (res && ((res.status >= 200 && res.status < 300) || res.status === 404)) ids.delete(id);
        else left.push(`${kind} ${id}: ${res ? `HTTP ${res.status}` : 'no delete operation'}`);
        // a deployment's delete is accepted, then its revisions are taken down: it is gone when it reads 404
        if (kind === 'deployment' && !ids.has(id) && !(await gone(target, id))) left.push(`${kind} ${id}: still there ${GONE_WITHIN_MS} ms after its delete`);
      }
    }
    return left;
  }
}

/** Task ids an answer holds: a task's own id (it has a contextId beside it) and any taskId field. */
function collectTaskIds(value: unknown, into: Set<string>, depth: number): void {
  if (depth > 6 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 100)) collectTaskIds(item, into, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.id === 'string' && typeof record.contextId === 'string' && UUID.test(record.id)) into.add(record.id);
  for (const [key, field] of Object.entries(record)) {
    if (key === 'taskId' && typeof field === 'string' && UUID.test(field)) into.add(field);
    else collectTaskIds(field, into, depth + 1);
  }
}

/** How long a deployment's delete may take to finish (its revisions torn down) before it is named as left. */
const GONE_WITHIN_MS = 30_000;

async function gone(target: Target, deploymentId: string): Promise<boolean> {
  const op = operationById.get('getDeployment');
  if (!op) return true;
  const deadline = Date.now() + GONE_WITHIN_MS;
  for (;;) {
    const res = await send({ ...target, onAnswer: undefined }, requestFor(op, { path: { deployment_id: deploymentId } }));
    if (res.status === 404) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The thread ids a successful write names: its path's, and any its answer holds (a run's thread, an A2A task's context). */
function threadsNamed(req: HttpRequest, res: HttpResponse): string[] {
  const named = new Set<string>();
  if (req.template.startsWith('/threads/{thread_id}') && typeof req.path.thread_id === 'string') named.add(req.path.thread_id);
  // a search lists what others made too: only what the write itself answered with counts
  if (/\/(search|count)$/.test(req.template)) return [...named];
  // a stream's events name them as a JSON answer does (A2A message/stream: each event's task context)
  for (const answer of [res.json, ...(res.events ?? []).map((e) => parsed(e.data))]) collectThreadIds(answer, named, 0);
  return [...named].filter((id) => UUID.test(id));
}

function collectThreadIds(value: unknown, into: Set<string>, depth: number): void {
  if (depth > 5 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 100)) collectThreadIds(item, into, depth + 1);
    return;
  }
  for (const [key, field] of Object.entries(value)) {
    if ((key === 'thread_id' || key === 'contextId' || key === 'context_id') && typeof field === 'string') into.add(field);
    else collectThreadIds(field, into, depth + 1);
  }
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
