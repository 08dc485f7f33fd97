// The protocol's commands on a thread (POST /threads/{id}/commands, and in band on its
// WebSocket), answered as upstream's server answers them: `run.start` and `input.respond`
// queue a protocol run (multitask strategy `enqueue` unless the command names another),
// `state.get` reads the thread's state, and the commands upstream hands to the thread's run
// session (`agent.getTree`, `subscription.*`) need a protocol run on the thread. Failures the
// protocol names are error envelopes; a missing thread (or another owner's) is `not_found`,
// as for every other operation on it.
import { ok, type Outcome } from '../../outcome.ts';
import type { AgentService } from '../service.ts';
import { uuid7 } from '../ids.ts';
import { isSupportedChannel } from '@langchain/langgraph/stream';
import { PROTOCOL_ASSISTANT_KEY, PROTOCOL_RUN_KEY, type ProtocolEvent } from './events.ts';
import { protocolRuns, threadProtocolEvents, type ThreadEventDeps } from './threadEvents.ts';
import { agentTree } from './agentTree.ts';

export type { CommandReply, ProtocolCommand, ResponseMeta } from './commandShapes.ts';
import type { CommandReply, ProtocolCommand, ResponseMeta } from './commandShapes.ts';

/** What run.start creates: upstream's protocol runs stream every mode, subgraphs included. */
const RUN_STREAM_MODES = ['values', 'updates', 'messages', 'tools', 'custom', 'tasks'];
const STRATEGIES = new Set(['reject', 'rollback', 'interrupt', 'enqueue']);

type Dict = Record<string, unknown>;
const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface CommandDeps extends ThreadEventDeps {
  /** The agent server as the caller sees it (another owner's thread is missing). */
  service: AgentService;
  owner: string;
  /** The thread's protocol sequence number through its last finished protocol run. */
  threadSeq(threadId: string): Promise<number>;
}

export class ProtocolCommands {
  constructor(private readonly deps: CommandDeps) {}

  async handle(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found' | 'busy'>> {
    try {
      switch (command.method) {
        case 'run.start':
          return await this.runStart(threadId, command);
        case 'input.respond':
          return await this.inputRespond(threadId, command);
        case 'state.get':
          return await this.stateGet(threadId, command);
        default:
          return ok(await this.sessionCommand(threadId, command));
      }
    } catch (err) {
      return ok({ type: 'error', id: command.id, error: 'unknown_error', message: err instanceof Error ? err.message : 'Unknown protocol error' });
    }
  }

  private async meta(threadId: string): Promise<ResponseMeta> {
    return { thread_id: threadId, applied_through_seq: await this.deps.threadSeq(threadId) };
  }

  private async success(threadId: string, id: number, result: Dict): Promise<Outcome<CommandReply, never>> {
    return ok({ type: 'success', id, result, meta: await this.meta(threadId) });
  }

  private error(id: number, error: string, message: string, meta?: ResponseMeta): CommandReply {
    return { type: 'error', id, error, message, ...(meta ? { meta } : {}) };
  }

  private async pendingInterrupts(threadId: string): Promise<boolean> {
    const thread = await this.deps.service.threads.get(threadId);
    return thread.ok && Object.values(thread.value.interrupts ?? {}).some((list) => list.length > 0);
  }

  private async runStart(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found' | 'busy'>> {
    const params = isDict(command.params) ? command.params : {};
    const assistantId = typeof params.assistant_id === 'string' ? params.assistant_id : '';
    if (!assistantId) return ok(this.error(command.id, 'invalid_argument', 'run.start requires an assistant_id.'));
    // the thread is bound to the assistant its first protocol run named (as upstream binds it)
    const bound = (await protocolRuns(this.deps, threadId, this.deps.owner))[0]?.kwargs[PROTOCOL_ASSISTANT_KEY];
    if (typeof bound === 'string' && bound !== assistantId)
      return ok(this.error(command.id, 'invalid_argument', `Thread ${threadId} is bound to assistant ${bound}; cannot run ${assistantId}.`));
    const strategy = typeof params.multitaskStrategy === 'string' && STRATEGIES.has(params.multitaskStrategy) ? params.multitaskStrategy : 'enqueue';
    const created = await this.start(threadId, assistantId, params.input, {
      config: isDict(params.config) ? params.config : undefined,
      metadata: isDict(params.metadata) ? params.metadata : undefined,
      strategy: strategy as 'enqueue',
    });
    if (!created.ok) return created;
    return this.success(threadId, command.id, { run_id: created.value });
  }

  /** Queues a protocol run: `input` resumes the thread's pending interrupts when it has some. */
  private async start(
    threadId: string,
    assistantId: string,
    input: unknown,
    options: { config?: Dict; metadata?: Dict; strategy: 'enqueue' | 'reject' | 'rollback' | 'interrupt'; update?: unknown; goto?: unknown; resume?: boolean },
  ): Promise<Outcome<string, 'not_found' | 'busy'>> {
    const resume = options.resume ?? (input !== undefined && input !== null && (await this.pendingInterrupts(threadId)));
    const body = {
      assistant_id: assistantId,
      ...(resume
        ? {
            command: {
              resume: input,
              ...(options.update !== undefined ? { update: options.update } : {}),
              ...(options.goto !== undefined ? { goto: options.goto } : {}),
            },
          }
        : { input: input ?? null }),
      ...(options.config ? { config: options.config } : {}),
      ...(options.metadata ? { metadata: options.metadata } : {}),
      stream_mode: RUN_STREAM_MODES,
      stream_subgraphs: true,
      stream_resumable: true,
      if_not_exists: 'create' as const,
      multitask_strategy: options.strategy,
      [PROTOCOL_RUN_KEY]: true,
      [PROTOCOL_ASSISTANT_KEY]: assistantId,
    };
    const run = await this.deps.service.runs.create(threadId, body as never);
    return run.ok ? ok(run.value.run_id) : run;
  }

  private async inputRespond(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found' | 'busy'>> {
    const params = isDict(command.params) ? command.params : {};
    const answers: Dict = {};
    if (Array.isArray(params.responses)) {
      for (const entry of params.responses) {
        if (!isDict(entry) || typeof entry.interrupt_id !== 'string')
          return ok(this.error(command.id, 'invalid_argument', 'input.respond responses entries require an interrupt_id.'));
        answers[entry.interrupt_id] = entry.response;
      }
      if (Object.keys(answers).length === 0) return ok(this.error(command.id, 'invalid_argument', 'input.respond requires at least one response.'));
    } else if (typeof params.interrupt_id === 'string') answers[params.interrupt_id] = params.response;
    else return ok(this.error(command.id, 'invalid_argument', 'input.respond requires an interrupt_id.'));
    // the thread's assistant is the one its runs were started with
    const thread = await this.deps.service.threads.get(threadId);
    const assistantId = thread.ok ? (thread.value.metadata as Dict | undefined)?.assistant_id : undefined;
    if (typeof assistantId !== 'string') return ok(this.error(command.id, 'no_such_run', 'Thread has no active assistant; call run.start first.'));
    if (!(await this.pendingInterrupts(threadId)))
      return ok(this.error(command.id, 'invalid_argument', 'input.respond can only be used while the run is interrupted.'));
    const update = isDict(params.update) || Array.isArray(params.update) ? params.update : undefined;
    const goto = typeof params.goto === 'string' || Array.isArray(params.goto) || isDict(params.goto) ? params.goto : undefined;
    const created = await this.start(threadId, assistantId, answers, {
      config: isDict(params.config) ? params.config : undefined,
      metadata: isDict(params.metadata) ? params.metadata : undefined,
      strategy: 'enqueue',
      update,
      goto,
      resume: true,
    });
    if (!created.ok) return created;
    return this.success(threadId, command.id, {});
  }

  private async stateGet(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found'>> {
    const state = await this.deps.service.threads.getState(threadId, { subgraphs: true });
    if (!state.ok) return state;
    const params = isDict(command.params) ? command.params : {};
    const keys = Array.isArray(params.keys) && params.keys.every((key) => typeof key === 'string') ? (params.keys as string[]) : undefined;
    const values = state.value.values as Dict;
    const checkpoint = state.value.checkpoint;
    return this.success(threadId, command.id, {
      values: keys ? Object.fromEntries(Object.entries(values).filter(([key]) => keys.includes(key))) : values,
      ...(checkpoint?.checkpoint_id
        ? { checkpoint: { id: checkpoint.checkpoint_id, ...(checkpoint.checkpoint_ns !== undefined ? { ns: checkpoint.checkpoint_ns } : {}) } }
        : {}),
    });
  }

  /** The commands upstream's run session answers: none without a protocol run on the thread. */
  private async sessionCommand(threadId: string, command: ProtocolCommand): Promise<CommandReply> {
    const runs = await protocolRuns(this.deps, threadId, this.deps.owner);
    const latest = runs.at(-1);
    if (!latest) return this.error(command.id, 'no_such_run', 'No active run is bound to this thread.');
    const meta = await this.meta(threadId);
    const params = isDict(command.params) ? command.params : {};
    switch (command.method) {
      case 'agent.getTree':
        return {
          type: 'success',
          id: command.id,
          result: { tree: agentTree(latest.graph_id, await this.present(threadId, latest.protocol_seq?.base ?? meta.applied_through_seq)) },
          meta,
        };
      case 'subscription.subscribe': {
        const channels = params.channels;
        if (!Array.isArray(channels) || channels.length === 0)
          return this.error(command.id, 'invalid_argument', 'subscription.subscribe requires a non-empty channels array.', meta);
        if (!channels.every((channel) => typeof channel === 'string' && isSupportedChannel(channel)))
          return this.error(command.id, 'invalid_argument', 'subscription.subscribe received an unsupported channel.', meta);
        // over HTTP the subscription is the event stream's filter: what it would replay is counted
        const events = await this.present(threadId, undefined, { channels: new Set(channels as string[]), ...subscriptionScope(params) });
        return { type: 'success', id: command.id, result: { subscription_id: uuid7(), replayed_events: events.length }, meta };
      }
      case 'subscription.unsubscribe':
        if (typeof params.subscription_id !== 'string')
          return this.error(command.id, 'invalid_argument', 'subscription.unsubscribe requires a subscription_id.', meta);
        return this.error(command.id, 'no_such_subscription', `Unknown subscription: ${params.subscription_id}`, meta);
      case 'subscription.reconnect':
        return this.error(command.id, 'not_supported', 'subscription.reconnect is not supported by this server yet.', meta);
      default:
        return this.error(command.id, 'unknown_command', `Unknown protocol command: ${command.method}`, meta);
    }
  }

  /** The thread's protocol events there are now (after `since`). */
  private async present(
    threadId: string,
    since?: number,
    filter: { channels: ReadonlySet<string>; namespaces?: string[][]; depth?: number } = { channels: ALL },
  ): Promise<ProtocolEvent[]> {
    const events: ProtocolEvent[] = [];
    for await (const event of threadProtocolEvents(this.deps, threadId, { ...filter, since }, { owner: this.deps.owner, present: true })) events.push(event);
    return events;
  }
}

const ALL: ReadonlySet<string> = new Set(['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input']);

/** The namespaces and depth of a subscription, when well formed (as upstream reads them). */
export function subscriptionScope(params: Dict): { namespaces?: string[][]; depth?: number } {
  const namespaces =
    Array.isArray(params.namespaces) && params.namespaces.every((ns) => Array.isArray(ns) && ns.every((s) => typeof s === 'string'))
      ? (params.namespaces as string[][])
      : undefined;
  const depth = typeof params.depth === 'number' && Number.isInteger(params.depth) && params.depth >= 0 ? params.depth : undefined;
  return { ...(namespaces ? { namespaces } : {}), ...(depth !== undefined ? { depth } : {}) };
}
