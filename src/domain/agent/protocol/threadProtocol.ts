// The protocol as one owner sees it: commands, and the event stream of a thread that is the
// owner's (another owner's thread is answered as a missing one).
import { fail, ok, type Outcome } from '../../outcome.ts';
import type { RunEventLog } from '../../ports/runEventLog.ts';
import { ownerOf, type ThreadRecord } from '../records.ts';
import type { RunStore } from '../../ports/runStore.ts';
import type { ThreadsRepository } from '../../ports/threadsRepository.ts';
import type { AgentService, ProtocolService } from '../service.ts';
import type { Command as ProtocolCommand, CommandReply } from '../../../../generated/protocol/types.gen.ts';
import { ProtocolCommands } from './commands.ts';
import type { EventFilter } from './events.ts';
import type { SharedThreadRuns } from './sharedThreadRuns.ts';
import type { FeedStream, ThreadFeeds } from './threadFeed.ts';

export interface ThreadProtocolDeps {
  service: Omit<AgentService, 'protocol'>;
  runs: Pick<RunStore, 'onThread' | 'firstOnThread'>;
  threads: Pick<ThreadsRepository, 'get'>;
  eventLog: RunEventLog;
  threadRuns: SharedThreadRuns;
  /** The threads' feeds: one read of a thread's events for all its subscribers. */
  feeds: ThreadFeeds;
}

export class ThreadProtocol implements ProtocolService {
  private readonly commands: ProtocolCommands;

  constructor(
    private readonly deps: ThreadProtocolDeps,
    private readonly owner: string,
  ) {
    this.commands = new ProtocolCommands({
      ...deps,
      service: deps.service as AgentService,
      owner,
      thread: (threadId) => this.thread(threadId),
    });
  }

  private async thread(threadId: string): Promise<ThreadRecord | undefined> {
    const thread = await this.deps.threads.get(threadId);
    return thread && ownerOf(thread) === this.owner ? thread : undefined;
  }

  command(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found' | 'busy' | 'quota_exceeded'>> {
    return this.commands.handle(threadId, command);
  }

  async visible(threadId: string): Promise<Outcome<true, 'not_found'>> {
    return (await this.thread(threadId)) ? ok(true) : fail('not_found', `Thread with ID ${threadId} not found`);
  }

  async events(threadId: string, filter: EventFilter, signal?: AbortSignal): Promise<Outcome<FeedStream, 'not_found'>> {
    const visible = await this.visible(threadId);
    return visible.ok ? ok(this.deps.feeds.read(threadId, this.owner, filter, signal)) : visible;
  }
}
