// The messages of one batch a run worker posted (runWorker.ts), in the order the main thread
// handles them: a held thread's checkpoint writes (calls to be made in order under the thread's
// key) go as one store write, as many as one takes (issues 86, 87). A run's writes and its
// stream events interleave in a batch (`put`, `values`, `put`, `values`), so writes joined only
// when side by side left a LangGraph run ~2.9 store writes a run (~880 more than needed in
// 1,000 runs over 100 threads): each a journal line and a write(2) on the embedded store, a
// statement on PostgreSQL. A write joins the thread's first write of the batch past the events
// between them, never past any other message (another call, a run's end, a log line): the
// events carry their data with them and nothing reads the store to publish one, so making a
// write before the events posted ahead of it changes nothing anyone can see, while a call or a
// run's end may depend on the store as the writes before it left it.
import type { FromWorker, StoreCall } from './protocol.ts';

/** A store write the worker asked to be made in order (a held thread's checkpoint write). */
export const isOrderedWrite = (message: FromWorker): message is StoreCall =>
  message.type === 'call' && message.order !== undefined && message.target === 'write';

/**
 * `messages` in the order they are handled: each alone, or ordered writes of one key (and one
 * store: `warmUp`) that `fits` lets join as one group, in the place of the first of them.
 */
export function batchGroups(messages: FromWorker[], fits: (group: StoreCall[], next: StoreCall) => boolean): (FromWorker | StoreCall[])[] {
  const handled: (FromWorker | StoreCall[])[] = [];
  const joined = new Set<number>();
  messages.forEach((one, at) => {
    if (joined.has(at)) return;
    if (!isOrderedWrite(one)) {
      handled.push(one);
      return;
    }
    const group = [one];
    for (let next = at + 1; next < messages.length; next += 1) {
      const message = messages[next]!;
      if (message.type === 'event') continue;
      if (!isOrderedWrite(message) || message.order !== one.order || message.warmUp !== one.warmUp || !fits(group, message)) break;
      group.push(message);
      joined.add(next);
    }
    handled.push(group.length > 1 ? group : one);
  });
  return handled;
}
