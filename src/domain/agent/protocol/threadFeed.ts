// One reader per thread (issue 67): the readers of a thread's protocol events (SSE
// subscribers, WebSocket subscriptions) do not each read the runs' event logs. A thread that
// has readers has one feed, which reads its events once (threadEvents.ts) and keeps the latest
// of them, as made for the wire, in a window bounded in events and in bytes; every reader takes its events from that
// window at its own position. A reader that is behind the window — one that asked `since` an
// event older than it, or one too slow to keep up — reads the logs by itself from where it is
// (as every reader did before), and takes the window again once it has caught up with it. So
// the feed never waits for a reader and holds no queue per reader; a replay and a reader's
// resume are what they were. The feed stops when its last reader goes.
//
// A reader is pulled (an async iterator: a promise per event) or pushed (issue 87: a stream
// writer attached with `push`): the feed hands its new events to every pushed reader in
// passes (fanOutPasses.ts), the readers at one position with one filter sharing one batch, so
// a thousand subscribers cost a thousand writes of the same bytes, and a pass gives the event
// loop back between slices. A pushed reader whose sink says it is full is paused where it is
// (sent nothing more, its events left in the window and the runs' logs) until it is resumed;
// then it takes up where it stopped, reading the logs by itself if the window has moved on.
import type { ProtocolEvent, EventFilter } from './events.ts';
import { eventJsonLength, matchesFilter } from './events.ts';
import { threadLogEvents, type ThreadEventDeps } from './threadEvents.ts';
import { schedulePass, type PassFeed } from './fanOutPasses.ts';
import { quietAbort } from '../../../shared/quietAbort.ts';

/** Where a pushed reader's events go: the stream's writer. */
export interface FeedSink {
  /**
   * Takes the reader's next events, in order (the same array for every reader at the same
   * position with the same filter: not to be changed); false when its connection holds too much
   * unsent, and the reader is paused until `resume()`.
   */
  deliver(events: readonly ProtocolEvent[]): boolean;
  /** The reader's own read of the logs failed: nothing more comes. */
  fail(err: unknown): void;
}

/** A pushed reader, as its writer holds it. */
export interface PushedReader {
  /** Its connection took what was sent: it is sent what came meanwhile, and on. */
  resume(): void;
  /** It is gone. */
  close(): void;
}

/** How many of a thread's latest events its feed keeps for its readers, and at most how many bytes of their JSON. */
export const FEED_WINDOW_EVENTS = 256;
export const FEED_WINDOW_BYTES = 8 * 1024 * 1024;

interface Feed extends PassFeed<Pushed> {
  /** The window: the thread's events with seq in (from, last], in order. */
  window: ProtocolEvent[];
  threadId: string;
  owner: string;
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

/** A pushed reader's state: taking the feed's passes, paused by its sink, or reading the logs by itself. */
interface Pushed {
  seq: number;
  filter: EventFilter;
  /** Readers with the same key at the same position are given the same batch. */
  key: string;
  sink: FeedSink;
  state: 'live' | 'paused' | 'own';
  closed: boolean;
  /** Wakes its own read, waiting for the sink to take more. */
  wake?: () => void;
  /** Stops its own read of the logs (waiting, maybe, for the thread's next run). */
  stopOwn?: AbortController;
}

/** A reader's events, pulled one at a time or pushed to a sink in batches. */
export interface FeedStream extends AsyncIterable<ProtocolEvent> {
  push(sink: FeedSink): PushedReader;
}

/** What a pass gives the readers at one place with one filter: the events, and the seq they take the readers to. */
interface Batch {
  events: readonly ProtocolEvent[];
  last: number;
}

const filterKey = (filter: EventFilter) => JSON.stringify([[...filter.channels].sort(), filter.namespaces ?? null, filter.depth ?? null]);

export class ThreadFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(
    private readonly deps: ThreadEventDeps,
    private readonly windowEvents = FEED_WINDOW_EVENTS,
    private readonly windowBytes = FEED_WINDOW_BYTES,
  ) {}

  /** The owner's protocol events of the thread that `filter` lets through, after `filter.since`, for as long as the reader stays. */
  read(threadId: string, owner: string, filter: EventFilter, signal?: AbortSignal): FeedStream {
    return {
      [Symbol.asyncIterator]: () => this.reader(threadId, owner, filter, signal),
      push: (sink) => this.push(threadId, owner, filter, sink, signal),
    };
  }

  /**
   * The owner's protocol events of the thread that `filter` lets through, after `filter.since`,
   * pushed to `sink` in batches until the reader is closed (or `signal` aborts).
   */
  push(threadId: string, owner: string, filter: EventFilter, sink: FeedSink, signal?: AbortSignal): PushedReader {
    const seq = filter.since ?? 0;
    const feed = this.join(threadId, owner, seq);
    const reader: Pushed = { seq, filter: { ...filter, since: undefined }, key: filterKey(filter), sink, state: 'own', closed: false };
    const close = () => {
      if (reader.closed) return;
      reader.closed = true;
      signal?.removeEventListener('abort', close);
      feed.pushed.delete(reader);
      quietAbort(reader.stopOwn);
      reader.wake?.();
      this.leave(threadId, owner, feed);
    };
    if (signal?.aborted) close();
    signal?.addEventListener('abort', close, { once: true });
    const resume = () => {
      if (reader.closed || reader.state !== 'paused') return;
      // its own read waits for it to take more: it goes on; else it takes the feed's passes again (or reads by itself)
      if (reader.wake) {
        reader.state = 'own';
        reader.wake();
      } else this.goLive(feed, reader, threadId, owner);
    };
    if (!reader.closed) this.goLive(feed, reader, threadId, owner);
    return { resume, close };
  }

  /** The reader takes the feed's passes if the window holds every event after it; else it reads the logs by itself until it does. */
  private goLive(feed: Feed, reader: Pushed, threadId: string, owner: string): void {
    if (!feed.stopped && feed.from <= reader.seq) {
      reader.state = 'live';
      feed.pushed.add(reader);
      // what the window holds after it goes out in the next pass
      schedulePass(feed);
      return;
    }
    reader.state = 'own';
    feed.pushed.delete(reader);
    void this.readOwn(feed, reader, threadId, owner);
  }

  /** One pass's events for a live reader: those after its position that its filter lets through. */
  private pushTo(feed: Feed, reader: Pushed, batches: Map<string, Map<number, Batch>>): void {
    if (reader.closed || reader.state !== 'live') return;
    const window = feed.window;
    if (feed.from > reader.seq) {
      // the window moved past it (a pass came too late for it): it reads the logs by itself
      feed.pushed.delete(reader);
      reader.state = 'own';
      return void this.readOwn(feed, reader, feed.threadId, feed.owner);
    }
    if ((window.at(-1)?.seq ?? reader.seq) <= reader.seq) return;
    // made once per pass for the readers at this place with this filter (a slice of the pass
    // later, the window may hold more: they are given those by the next pass); found by filter,
    // then by place, with no key made per reader
    let atPlaces = batches.get(reader.key);
    if (!atPlaces) batches.set(reader.key, (atPlaces = new Map()));
    let batch = atPlaces.get(reader.seq);
    if (!batch) {
      let i = window.length;
      while (i > 0 && window[i - 1]!.seq > reader.seq) i -= 1;
      const events: ProtocolEvent[] = [];
      for (; i < window.length; i += 1) if (matchesFilter(reader.filter, window[i]!)) events.push(window[i]!);
      atPlaces.set(reader.seq, (batch = { events: Object.freeze(events), last: window.at(-1)!.seq }));
    }
    reader.seq = batch.last;
    if (batch.events.length && !reader.sink.deliver(batch.events)) reader.state = 'paused';
  }

  /** A pushed reader behind the window (or whose feed stopped): its own read of the logs, sent on as its sink takes it. */
  private async readOwn(feed: Feed, reader: Pushed, threadId: string, owner: string): Promise<void> {
    const stop = (reader.stopOwn = new AbortController());
    const own = threadLogEvents(this.deps, threadId, reader.seq, { owner, signal: stop.signal });
    try {
      while (!reader.closed) {
        if (!feed.stopped && feed.from <= reader.seq) return this.goLive(feed, reader, threadId, owner);
        const read = await own.next();
        if (read.done || reader.closed) return;
        reader.seq = Math.max(reader.seq, read.value.seq);
        if (!matchesFilter(reader.filter, read.value)) continue;
        if (reader.sink.deliver([read.value])) continue;
        // full: wait for its resume (or its close)
        reader.state = 'paused';
        await new Promise<void>((resolve) => (reader.wake = resolve));
        reader.wake = undefined;
      }
    } catch (err) {
      if (!reader.closed) reader.sink.fail(err);
    } finally {
      quietAbort(stop);
      await own.return(undefined);
    }
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
      const made: Feed = {
        window: [],
        head: 0,
        from: since,
        bytes: 0,
        waiters: [],
        readers: 0,
        stopped: false,
        stop: new AbortController(),
        threadId,
        owner,
        pushed: new Set(),
        visit: (reader, batches) => this.pushTo(made, reader, batches as Map<string, Map<number, Batch>>),
      };
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
    quietAbort(feed.stop);
    wake(feed);
    // its pushed readers read on by themselves
    for (const reader of [...feed.pushed]) this.goLive(feed, reader, feed.threadId, feed.owner);
  }

  /** The feed's one read of the thread's events, from where its first reader began. */
  private async run(key: string, feed: Feed, threadId: string, owner: string): Promise<void> {
    try {
      for await (const event of threadLogEvents(this.deps, threadId, feed.from, { owner, signal: feed.stop.signal })) {
        feed.window.push(event);
        // its JSON is what every reader sends; its length bounds what the window holds
        feed.bytes += eventJsonLength(event);
        let gone = 0;
        while (feed.window.length - gone > 1 && (feed.window.length - gone > this.windowEvents || feed.bytes > this.windowBytes)) {
          feed.bytes -= eventJsonLength(feed.window[gone]!);
          gone += 1;
        }
        if (gone > 0) {
          // the oldest go: a reader still before them reads them from the logs
          feed.from = feed.window[gone - 1]!.seq;
          feed.window.splice(0, gone);
          feed.head += gone;
        }
        wake(feed);
        if (feed.pushed.size) schedulePass(feed);
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
