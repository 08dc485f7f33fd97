// An in-memory AgentService for the A2A domain tests: graphs are tiny scripted functions,
// runs execute one at a time per thread (enqueue), and cancel interrupts a run.
import { randomUUID } from 'node:crypto';
import type { Assistant, Run, RunCreate, Thread, ThreadState } from '../../generated/agent-server/types.gen.ts';
import type { AgentService, Outcome, RunEvent } from '../../src/domain/agent/service.ts';

type Values = Record<string, unknown> & { messages?: { type: string; content: string; id: string }[] };
/** A graph: the next values from the current ones and the input; may wait on the signal. */
export type FakeGraph = (values: Values, input: Record<string, unknown>, signal: AbortSignal) => Promise<Values>;

const ts = () => new Date().toISOString();

export class FakeAgentService implements AgentService {
  readonly assistants = new Map<string, Assistant>();
  private readonly graphs = new Map<string, { fn: FakeGraph; hasMessages: boolean }>();
  private readonly threads = new Map<string, { thread: Thread; tail: Promise<void> }>();
  private readonly runs = new Map<string, { run: Run; done: Promise<void>; abort: AbortController; events: RunEvent[]; waiters: (() => void)[] }>();

  addGraph(graphId: string, fn: FakeGraph, hasMessages = true): Assistant {
    const assistant: Assistant = {
      assistant_id: randomUUID(), graph_id: graphId, config: {}, context: {}, metadata: { created_by: 'system' },
      name: graphId, description: null, version: 1, created_at: ts(), updated_at: ts(),
    };
    this.assistants.set(assistant.assistant_id, assistant);
    this.graphs.set(graphId, { fn, hasMessages });
    return assistant;
  }

  async resolveAssistant(id: string) {
    return this.assistants.get(id) ?? [...this.assistants.values()].find((a) => a.graph_id === id);
  }
  assistantHasMessages(a: Assistant) {
    return this.graphs.get(a.graph_id)?.hasMessages ?? false;
  }
  async getThread(id: string) {
    return this.threads.get(id)?.thread;
  }
  async getThreadState(id: string): Promise<ThreadState | undefined> {
    const t = this.threads.get(id);
    if (!t) return undefined;
    return { values: (t.thread.values ?? {}) as ThreadState['values'], next: [], tasks: [], metadata: {}, created_at: null, checkpoint: null, parent_checkpoint: null, interrupts: [] } as unknown as ThreadState;
  }

  async createRun(threadId: string, body: RunCreate): Promise<Outcome<Run>> {
    const assistant = await this.resolveAssistant(body.assistant_id);
    if (!assistant) return { ok: false, failure: { status: 404, detail: 'Thread or assistant not found.' } };
    let entry = this.threads.get(threadId);
    if (!entry) {
      if (body.if_not_exists !== 'create') return { ok: false, failure: { status: 404, detail: 'Thread or assistant not found.' } };
      entry = { thread: { thread_id: threadId, created_at: ts(), updated_at: ts(), metadata: {}, status: 'idle', values: {}, interrupts: {}, config: {} }, tail: Promise.resolve() };
      this.threads.set(threadId, entry);
    }
    const run: Run = {
      run_id: randomUUID(), thread_id: threadId, assistant_id: assistant.assistant_id, created_at: ts(), updated_at: ts(),
      status: 'pending', metadata: body.metadata ?? {}, kwargs: {}, multitask_strategy: 'enqueue',
    };
    const abort = new AbortController();
    const state = { run, abort, events: [] as RunEvent[], waiters: [] as (() => void)[], done: Promise.resolve() };
    const thread = entry;
    const set = (status: Run['status']) => (state.run = { ...state.run, status, updated_at: ts() });
    const emit = (event: string, data: unknown) => {
      state.events.push({ id: String(state.events.length), event, data });
      for (const wake of state.waiters.splice(0)) wake();
    };
    state.done = thread.tail.then(async () => {
      if (abort.signal.aborted) return;
      set('running');
      emit('metadata', { run_id: run.run_id });
      try {
        const input = (body.input ?? {}) as Record<string, unknown>;
        const before = (thread.thread.values ?? {}) as Values;
        const humans = ((input.messages as { content: string }[] | undefined) ?? []).map((m) => ({ type: 'human', content: m.content, id: randomUUID() }));
        const start: Values = { ...before, ...input, ...(this.graphs.get(assistant.graph_id)!.hasMessages ? { messages: [...(before.messages ?? []), ...humans] } : {}) };
        emit('values', start);
        const next = await this.graphs.get(assistant.graph_id)!.fn(start, input, abort.signal);
        thread.thread = { ...thread.thread, values: next };
        emit('values', next);
        set('success');
      } catch (err) {
        if (!abort.signal.aborted) emit('error', { error: 'Error', message: (err as Error).message });
        set(abort.signal.aborted ? 'interrupted' : 'error');
      }
      emit('end', null);
    });
    thread.tail = state.done;
    this.runs.set(run.run_id, state);
    return { ok: true, value: run };
  }

  async getRun(threadId: string, runId: string) {
    const r = this.runs.get(runId)?.run;
    return r && r.thread_id === threadId ? r : undefined;
  }
  async waitForRun(_threadId: string, runId: string) {
    const r = this.runs.get(runId)!;
    await r.done;
    return r.run;
  }
  async cancelRun(_threadId: string, runId: string): Promise<Outcome<Run>> {
    const r = this.runs.get(runId);
    if (!r) return { ok: false, failure: { status: 404, detail: 'Run not found' } };
    if (r.run.status !== 'pending' && r.run.status !== 'running') return { ok: false, failure: { status: 409, detail: 'Run is not active' } };
    r.abort.abort();
    if (r.run.status === 'pending') r.run = { ...r.run, status: 'interrupted', updated_at: ts() };
    return { ok: true, value: r.run };
  }
  async *runEvents(runId: string, options: { signal?: AbortSignal } = {}): AsyncIterable<RunEvent> {
    const r = this.runs.get(runId);
    if (!r) return;
    let i = 0;
    for (;;) {
      while (i < r.events.length) yield r.events[i++];
      if (r.events.at(-1)?.event === 'end' || options.signal?.aborted) return;
      if (r.run.status === 'interrupted') return;
      await new Promise<void>((resolve) => r.waiters.push(resolve));
    }
  }
}

/** Replies `echo: <last human text>`. */
export const echoGraph: FakeGraph = async (values) => {
  const last = values.messages?.at(-1)?.content ?? '';
  return { ...values, messages: [...(values.messages ?? []), { type: 'ai', content: `echo: ${last}`, id: randomUUID() }] };
};

/** Waits until aborted. */
export const blockingGraph: FakeGraph = (_values, _input, signal) =>
  new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
