// A stream that holds a stream slot gives the slot back once it ends, however it ends. A
// stream that can be pushed (pushedStream.ts: a thread's protocol events) stays one: its
// writer is still handed batches, the slot going back when the writer closes it. Wrapped in an
// async generator it would only be pulled, a promise per event per subscriber (issue 87: every
// WebSocket subscriber of the fan-out read its events that way, and half the bench's are).
import { isPushable, type PushableStream } from './pushedStream.ts';

export function releasedAtEnd<T>(stream: AsyncIterable<T>, release: (() => void) | undefined): AsyncIterable<T> {
  const pulled = pulledThenReleased(stream, release);
  if (!isPushable(stream)) return pulled;
  const pushable: PushableStream<T> = {
    [Symbol.asyncIterator]: () => pulled[Symbol.asyncIterator](),
    push(sink) {
      const pushed = stream.push(sink);
      return {
        resume: () => pushed.resume(),
        close: () => {
          pushed.close();
          release?.();
        },
      };
    },
  };
  return pushable;
}

async function* pulledThenReleased<T>(stream: AsyncIterable<T>, release: (() => void) | undefined): AsyncGenerator<T> {
  try {
    yield* stream;
  } finally {
    release?.();
  }
}
