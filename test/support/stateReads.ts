// Counting the reads of a thread's state (ThreadStateReader.state, which revives every message
// of the thread) while some work runs in process: for the tests of what needs no state.
import { ThreadStateReader } from '../../src/domain/agent/threads/threadState.ts';

/** The result of `work`, and how many times a thread's state was read while it ran. */
export async function stateReads<T>(work: () => Promise<T>): Promise<{ result: T; reads: number }> {
  const original = Object.getOwnPropertyDescriptor(ThreadStateReader.prototype, 'state')!;
  let reads = 0;
  Object.defineProperty(ThreadStateReader.prototype, 'state', {
    ...original,
    value: function (this: ThreadStateReader, ...args: Parameters<ThreadStateReader['state']>) {
      reads += 1;
      return (original.value as ThreadStateReader['state']).apply(this, args);
    },
  });
  try {
    return { result: await work(), reads };
  } finally {
    Object.defineProperty(ThreadStateReader.prototype, 'state', original);
  }
}
