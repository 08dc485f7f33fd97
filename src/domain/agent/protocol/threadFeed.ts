// One reader per thread (issue 67): the readers of a thread's protocol events (SSE
// subscribers, WebSocket subscriptions) do not each read the runs' event logs. A thread that
// has readers has one feed, which reads its events once (threadEvents.ts) and keeps the latest
// of them, as made for the wire, in a window bounded in events and in bytes; every reader takes its events from that
// window at its own position. A reader that is behind the window — one that asked `since` an
// event older than it, or one too slow to keep up — reads the logs by itself from where it is
// (as every reader did before), and takes the window again once it has caught up with it. So
// the feed never waits for a reader and holds no queue per reader; a replay and a reader's
// resume are what they were. The feed stops when its last reader goes.
import type { ProtocolEvent, EventFilter } from './events.ts';
import { eventJson, matchesFilter } from './events.ts';
import { threadLogEvents, type ThreadEventDeps } from './threadEvents.ts';

/** How many of a thread's latest events its feed keeps for its readers, and at most how many bytes of their JSON. */
export const FEED_WINDOW_EVENTS = 256;
export const FEED_WINDOW_BYTES = 8 * 1024 * 1024;

interface Feed {
  /** The window: the thread's events with seq in (from, last], in order. */
  window: ProtocolEvent[];
  /** Position of window[0] among all the events the feed has read (positions only grow). */
  head: number;
  /** The window holds every event after this seq (the seq before its first). */
  from: number;
  /** The length of the window's events' JSON. */
  bytes: number;
  /** Readers waiting for the feed's next event. */
  waiters: (() => void)[];
  readers: number;
  /** The feed stopped reading (its last reader went, or its read failed): readers read on by themselves. */
  stopped: boolean;
  stop: AbortController;
}

export class ThreadFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(
    private readonly deps: ThreadEventDeps,
    private readonly windowEvents = FEED_WINDOW_EVENTS,
    private readonly windowBytes = FEED_WINDOW_BYTES,
  ) {}

  /** The owner's protocol events of the thread that `filter` lets through, after `filter.since`, for as long as the reader stays. */
  read(threadId: string, owner: string, filter: EventFilter, signal?: AbortSignal): AsyncIterable<ProtocolEvent> {
    return { [Symbol.asyncIterator]: () => this.reader(threadId, owner, filter, signal) };
  }

  /** How many feeds are reading (one per thread and owner with readers). */
  get reading(): number {
    return this.feeds.size;
  }

  private join(threadId: string, owner: string, since: number): Feed {
    // an owner's readers share a feed: another owner's runs on the thread are not theirs
    const key = `${owner}\u0000${threadId}`;
    let feed = this.feeds.get(key);
    if (!feed || feed.stopped) {
      const made: Feed = { window: [], head: 0, from: since, bytes: 0, waiters: [], readers: 0, stopped: false, stop: new AbortController() };
      this.feeds.set(key, made);
      void this.run(key, made, threadId, owner);
      feed = made;
    }
    feed.readers += 1;
    return feed;
  }

  private leave(threadId: string, owner: string, feed: Feed): void {
    feed.readers -= 1;
    if (feed.readers > 0) return;
    const key = `${owner}\u0000${threadId}`;
    if (this.feeds.get(key) === feed) this.feeds.delete(key);
    this.halt(feed);
  }

  private halt(feed: Feed): void {
    feed.stopped = true;
    feed.stop.abort();
    wake(feed);
  }

  /** The feed's one read of the thread's events, from where its first reader began. */
  private async run(key: string, feed: Feed, threadId: string, owner: string): Promise<void> {
    try {
      for await (const event of threadLogEvents(this.deps, threadId, feed.from, { owner, signal: feed.stop.signal })) {
        feed.window.push(event);
        // its JSON is what every reader sends; its length bounds what the window holds
        feed.bytes += eventJson(event).length;
        let gone = 0;
        while (feed.window.length - gone > 1 && (feed.window.length - gone > this.windowEvents || feed.bytes > this.windowBytes)) {
          feed.bytes -= eventJson(feed.window[gone]!).length;
          gone += 1;
        }
        if (gone > 0) {
          // the oldest go: a reader still before them reads them from the logs
          feed.from = feed.window[gone - 1]!.seq;
          feed.window.splice(0, gone);
          feed.head += gone;
        }
        wake(feed);
      }
    } catch {
      // its readers read on by themselves (and meet the failure there, if it lasts)
    } finally {
      if (this.feeds.get(key) === feed) this.feeds.delete(key);
      this.halt(feed);
    }
  }

  private reader(threadId: string, owner: string, filter: EventFilter, signal?: AbortSignal): AsyncIterator<ProtocolEvent> {
    const channels = { ...filter, since: undefined };
    /** The seq of the last event this reader has passed (sent or filtered out). */
    let seq = filter.since ?? 0;
    const feed = this.join(threadId, owner, seq);
    /** Its position in the feed; undefined while it reads by itself. */
    let at: number | undefined;
    /** Its own read of the logs, while it is behind the window. */
    let own: AsyncGenerator<ProtocolEvent> | undefined;
    let done = false;
    let wakeMe: (() => void) | undefined;
    // kept here as the signal says it once: the signal's own getter, asked at every event of
    // every reader, was ~1% of the main thread under fan-out (issue 67)
    let aborted = signal?.aborted ?? false;
    const onAbort = () => {
      aborted = true;
      wakeMe?.();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = async (): Promise<IteratorResult<ProtocolEvent>> => {
      if (!done) {
        done = true;
        // a next() waiting for the feed ends now, not at the thread's next event
        wakeMe?.();
        signal?.removeEventListener('abort', onAbort);
        this.leave(threadId, owner, feed);
        const reading = own;
        own = undefined;
        await reading?.return(undefined);
      }
      return { done: true, value: undefined };
    };
    /** Takes the window from the first event after `seq`, if the window holds every event after it. */
    const takeWindow = (): boolean => {
      if (feed.stopped || feed.from > seq) return false;
      const first = feed.window.findIndex((event) => event.seq > seq);
      at = feed.head + (first < 0 ? feed.window.length : first);
      return true;
    };
    const next = async (): Promise<IteratorResult<ProtocolEvent>> => {
      while (!done && !aborted) {
        if (at !== undefined) {
          if (at < feed.head) {
            // fallen behind the window: read from the logs by itself
            at = undefined;
            continue;
          }
          const end = feed.head + feed.window.length;
          while (at < end) {
            const event = feed.window[at - feed.head]!;
            at += 1;
            if (event.seq <= seq) continue;
            seq = event.seq;
            if (matchesFilter(channels, event)) return { done: false, value: event };
          }
          if (feed.stopped) {
            at = undefined;
            continue;
          }
          await new Promise<void>((resolve) => {
            wakeMe = resolve;
            feed.waiters.push(resolve);
          });
          wakeMe = undefined;
          continue;
        }
        if (takeWindow()) {
          await own?.return(undefined);
          own = undefined;
          continue;
        }
        own ??= threadLogEvents(this.deps, threadId, seq, { owner, signal });
        const read = await own.next();
        if (read.done) break;
        seq = Math.max(seq, read.value.seq);
        if (matchesFilter(channels, read.value)) return { done: false, value: read.value };
      }
      return finish();
    };
    return { next, return: finish };
  }
}

function wake(feed: Feed): void {
  const waiters = feed.waiters;
  if (waiters.length === 0) return;
  feed.waiters = [];
  for (const resolve of waiters) resolve();
}
