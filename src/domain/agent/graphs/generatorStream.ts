// LangChain's IterableReadableStream.fromAsyncGenerator without its enqueue after close. Every
// Runnable.stream (so every LangGraph run) reads its generator through one: when the generator
// is done the stream's pull closes the controller and then enqueues the end's value anyway, so
// Node makes an ERR_INVALID_STATE TypeError (with a stack captured at no limit) that the
// stream, already closed, drops. That error was ~60 µs of a run worker's ~2 ms a run on 100
// threads (its CPU profile: NodeError under the pull's enqueue), for nothing anyone reads.
//
// Replaced only while the method is the one this was written against (its source is
// fingerprinted): another @langchain/core keeps its own. The stream it makes is the same
// class, reads the same chunks, closes, errors and cancels as the original's does:
// test/domain/agent/graphs/generatorStream.test.ts compares both.
import type { ReadableStreamDefaultController, UnderlyingSource } from 'node:stream/web';
import { IterableReadableStream } from '@langchain/core/utils/stream';
import { bothBuilds } from '../tracing/bothBuilds.ts';
import { knownReplacement } from '../tracing/knownReplacement.ts';

type StreamClass = typeof IterableReadableStream;
type FromGenerator = StreamClass['fromAsyncGenerator'];

/** sha256 of `IterableReadableStream.fromAsyncGenerator.toString()` in @langchain/core 1.2.13 (its ESM and CommonJS builds alike). */
const KNOWN_FROM_GENERATOR = new Set(['589478f99ac2d2039401d629d59f0137e0504a8579eaa1ac88ba4d0c5ca0a13b']);

/** The underlying source of a stream reading `generator`: the original's, but nothing enqueued once the generator is done. */
export function generatorSource<T>(generator: AsyncGenerator<T>): UnderlyingSource<T> {
  return {
    async pull(controller: ReadableStreamDefaultController<T>) {
      const { value, done } = await generator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason?: unknown) {
      await generator.return(reason);
    },
  };
}

/** The ESM class, and the CommonJS one once something has loaded it (bothBuilds.ts). */
export const streamClasses = bothBuilds(IterableReadableStream, '@langchain/core/utils/stream', 'IterableReadableStream');

const replaced = knownReplacement<StreamClass, FromGenerator>({
  classes: streamClasses,
  known: KNOWN_FROM_GENERATOR,
  get: (streamClass) => streamClass.fromAsyncGenerator,
  set: (streamClass, fromAsyncGenerator) => (streamClass.fromAsyncGenerator = fromAsyncGenerator),
  // the original makes the class itself whatever it is called on (a subclass included): so does this
  replacement: (streamClass) => (<T>(generator: AsyncGenerator<T>) => new streamClass<T>(generatorSource(generator))) as unknown as FromGenerator,
});

/** The fromAsyncGenerator `streamClass` came with. */
export const originalFromGenerator = (streamClass: StreamClass): FromGenerator => replaced.original(streamClass);

/** Replaces fromAsyncGenerator on each class whose method is the known one; how many classes have the replacement (knownReplacement.ts). */
export const useGeneratorStream = (): number => replaced.use();
