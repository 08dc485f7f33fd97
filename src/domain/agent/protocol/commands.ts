// The protocol's commands on a thread (POST /threads/{id}/commands, and in band on its
// WebSocket), answered as upstream's server answers them: `run.start` and `input.respond`
// queue a protocol run (multitask strategy `enqueue` unless the command names another),
// `state.get` reads the thread's state, and the commands upstream hands to the thread's run
// session (`agent.getTree`, `subscription.*`) need a protocol run on the thread. Each method's
// params are checked against spec/protocol.openrpc.json where upstream checks them (a session
// command without a run is `no_such_run` whatever its params). Failures the protocol names are
// error envelopes; a missing thread (or another owner's) is `not_found`, as for every other
// operation on it.
import { ok, type Outcome } from '../../outcome.ts';
import type { AgentService } from '../service.ts';
import { uuid7 } from '../ids.ts';
import { PROTOCOL_ASSISTANT_KEY, PROTOCOL_RUN_KEY, type ProtocolEvent } from './events.ts';
import { protocolRuns, threadProtocolEvents, type ThreadEventDeps } from './threadEvents.ts';
import { agentTree } from './agentTree.ts';
import type { ThreadRecord } from '../records.ts';
import type { RunStore } from '../../ports/runStore.ts';
import { isProtocolRun } from './plainRuns.ts';

import { paramsProblem } from '../../../shared/protocolCommands.ts';
import type * as Protocol from '../../../../generated/protocol/types.gen.ts';
import type { RunCreate, StreamMode } from '../../../../generated/agent-server/types.gen.ts';

type ProtocolCommand = Protocol.Command;
type CommandReply = Protocol.CommandReply;
type ResponseMeta = Protocol.ResponseMeta;

/** What run.start creates: upstream's protocol runs stream every mode, subgraphs included. */
const RUN_STREAM_MODES: StreamMode[] = ['values', 'updates', 'messages', 'tools', 'custom', 'tasks'];

/** What a protocol run is started with: run.start's params, or input.respond's answers with its update and goto. */
interface ProtocolRunOptions {
  config?: Protocol.RunStartParams['config'];
  metadata?: Protocol.RunStartParams['metadata'];
  strategy: Protocol.MultitaskStrategy;
  update?: Protocol.InputRespondParams['update'];
  goto?: Protocol.Goto;
  resume?: boolean;
}

type Dict = Record<string, unknown>;
/** A command's params, once paramsProblem found nothing wrong with them: its method's params. */
const paramsOf = <Params>(command: ProtocolCommand): Params => (command.params ?? {}) as unknown as Params;

export interface CommandDeps extends ThreadEventDeps {
  /** The thread's runs, and the first protocol run among them (the assistant the thread is bound to) without reading the others. */
  runs: ThreadEventDeps['runs'] & Pick<RunStore, 'firstOnThread'>;
  /** The agent server as the caller sees it (another owner's thread is missing). */
  service: AgentService;
  owner: string;
  /**
   * The owner's thread as stored (undefined when missing or another owner's): its metadata,
   * pending interrupts and protocol sequence number, without reading its state. `threads.get`
   * answers the same record with its state's values revived, every message of the thread,
   * which a command that needs none of them would pay on every call.
   */
  thread(threadId: string): Promise<ThreadRecord | undefined>;
}

export class ProtocolCommands {
  constructor(private readonly deps: CommandDeps) {}

  async handle(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found' | 'busy' | 'quota_exceeded'>> {
    try {
      if (OWN_COMMANDS.has(command.method)) {
        const problem = paramsProblem(command.method, command.params);
        if (problem) return ok(this.error(command.id, 'invalid_argument', problem));
      }
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
    // the thread's protocol sequence number through its last finished protocol run
    return { thread_id: threadId, applied_through_seq: (await this.deps.thread(threadId))?.protocol_seq ?? 0 };
  }

  private async success(threadId: string, id: number, result: Dict): Promise<Outcome<CommandReply, never>> {
    return ok({ type: 'success', id, result, meta: await this.meta(threadId) });
  }

  private error(id: number, error: Protocol.ErrorCode, message: string, meta?: ResponseMeta): CommandReply {
    return { type: 'error', id, error, message, ...(meta ? { meta } : {}) };
  }

  /** Whether the thread has a question to answer (see asked): its record's interrupts, or its running run's `input.requested`. */
  private async waitsForInput(threadId: string): Promise<boolean> {
    const thread = await this.deps.thread(threadId);
    return !!thread && (await this.asked(threadId, thread));
  }

  /**
   * Whether input.respond has a question to answer on `thread`: the interrupts its record keeps,
   * or those its protocol run has asked while it still runs. A client answers the question it was
   * shown (`input.requested`), and that event comes before the run's end is recorded on the thread
   * (a node beside the asking one still working, or a loaded server: a page's Approve was refused
   * in a browser test). Upstream takes the answer too, replying once the asking run has ended; here
   * the reply comes at once and the answer's run is queued behind the asking one. Only the running
   * run's own events are read, and only while the thread is busy.
   */
  private async asked(threadId: string, thread: ThreadRecord): Promise<boolean> {
    if (recordWaits(thread)) return true;
    if (thread.status !== 'busy') return false;
    const events = await this.present(threadId, thread.protocol_seq ?? 0, { channels: INPUT });
    return events.some((event) => event.method === 'input.requested');
  }

  private async runStart(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found' | 'busy' | 'quota_exceeded'>> {
    const params = paramsOf<Protocol.RunStartParams>(command);
    const assistantId = params.assistant_id;
    // the thread is bound to the assistant its first protocol run named (as upstream binds it);
    // found without reading the thread's other runs: a run.start came at every run
    const bound = (await this.deps.runs.firstOnThread(threadId, this.deps.owner, isProtocolRun))?.kwargs[PROTOCOL_ASSISTANT_KEY];
    if (typeof bound === 'string' && bound !== assistantId)
      return ok(this.error(command.id, 'invalid_argument', `Thread ${threadId} is bound to assistant ${bound}; cannot run ${assistantId}.`));
    const created = await this.start(threadId, assistantId, params.input, {
      config: params.config,
      metadata: params.metadata,
      strategy: params.multitaskStrategy ?? 'enqueue',
    });
    if (!created.ok) return created;
    return this.success(threadId, command.id, { run_id: created.value });
  }

  /**
   * Queues a protocol run: `input` resumes the thread's pending interrupts when it has some, those
   * its record keeps or those its running run has asked (upstream reads the thread's state, whose
   * tasks show an interrupt as soon as its node has raised it, before the run ends).
   */
  private async start(
    threadId: string,
    assistantId: string,
    input: Protocol.RunStartParams['input'],
    options: ProtocolRunOptions,
  ): Promise<Outcome<string, 'not_found' | 'busy' | 'quota_exceeded'>> {
    const resume = options.resume ?? (input !== undefined && input !== null && (await this.waitsForInput(threadId)));
    const body: RunCreate = {
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
    const run = await this.deps.service.runs.create(threadId, body);
    return run.ok ? ok(run.value.run_id) : run;
  }

  private async inputRespond(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found' | 'busy' | 'quota_exceeded'>> {
    const params = paramsOf<Protocol.InputRespondParams>(command);
    // one interrupt or several (the schema checks each form; one of them must be there)
    const answers: Dict = {};
    if (params.responses) for (const entry of params.responses) answers[entry.interrupt_id] = entry.response;
    else if (params.interrupt_id !== undefined) answers[params.interrupt_id] = params.response;
    else return ok(this.error(command.id, 'invalid_argument', 'input.respond requires an interrupt_id.'));
    // the thread's assistant is the one its runs were started with
    const thread = await this.deps.thread(threadId);
    const assistantId = (thread?.metadata as Dict | undefined)?.assistant_id;
    if (typeof assistantId !== 'string') return ok(this.error(command.id, 'no_such_run', 'Thread has no active assistant; call run.start first.'));
    if (!thread || !(await this.asked(threadId, thread)))
      return ok(this.error(command.id, 'invalid_argument', 'input.respond can only be used while the run is interrupted.'));
    const created = await this.start(threadId, assistantId, answers, {
      config: params.config,
      metadata: params.metadata,
      strategy: 'enqueue',
      update: params.update,
      goto: params.goto,
      resume: true,
    });
    if (!created.ok) return created;
    return this.success(threadId, command.id, {});
  }

  private async stateGet(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found'>> {
    const state = await this.deps.service.threads.getState(threadId, { subgraphs: true });
    if (!state.ok) return state;
    const { keys } = paramsOf<Protocol.StateGetParams>(command);
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
    const problem = command.method !== 'subscription.reconnect' && paramsProblem(command.method, command.params);
    if (problem) return this.error(command.id, 'invalid_argument', problem, meta);
    switch (command.method) {
      case 'agent.getTree':
        return {
          type: 'success',
          id: command.id,
          result: { tree: agentTree(latest.graph_id, await this.present(threadId, latest.protocol_seq?.base ?? meta.applied_through_seq)) },
          meta,
        };
      case 'subscription.subscribe': {
        const { channels, namespaces, depth } = paramsOf<Protocol.SubscriptionSubscribeParams>(command);
        // over HTTP the subscription is the event stream's filter: what it would replay is counted
        const events = await this.present(threadId, undefined, { channels: new Set(channels), namespaces, depth });
        return { type: 'success', id: command.id, result: { subscription_id: uuid7(), replayed_events: events.length }, meta };
      }
      case 'subscription.unsubscribe': {
        const { subscription_id } = paramsOf<Protocol.SubscriptionUnsubscribeParams>(command);
        return this.error(command.id, 'no_such_subscription', `Unknown subscription: ${subscription_id}`, meta);
      }
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

/** The commands the thread answers itself (the others go to its latest run's session). */
const OWN_COMMANDS = new Set(['run.start', 'input.respond', 'state.get']);

/** Whether the thread's record keeps interrupts (a run's end sets them: none after a resumed run completes). */
const recordWaits = (thread: ThreadRecord): boolean => Object.values(thread.interrupts ?? {}).some((list) => list.length > 0);

/** The channel of a run's questions (`input.requested`). */
const INPUT: ReadonlySet<string> = new Set(['input']);
const ALL: ReadonlySet<string> = new Set(['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input']);
