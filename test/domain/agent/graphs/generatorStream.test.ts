// LangChain's stream of a generator without its enqueue after close (src/domain/agent/graphs/generatorStream.ts):
// the replacement's rule on a controller, and its streams against the original's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { IterableReadableStream } from '@langchain/core/utils/stream';
import { fingerprint } from '../../../../src/domain/agent/tracing/knownReplacement.ts';
import { generatorSource, originalFromGenerator, streamClasses, useGeneratorStream } from '../../../../src/domain/agent/graphs/generatorStream.ts';

/** What a controller was asked, in order. */
function recordingController(): { calls: string[]; controller: ReadableStreamDefaultController<unknown> } {
  const calls: string[] = [];
  const controller = {
    close: () => void calls.push('close'),
    enqueue: (value: unknown) => void calls.push(`enqueue ${String(value)}`),
    error: () => void calls.push('error'),
    desiredSize: 1,
  } as unknown as ReadableStreamDefaultController<unknown>;
  return { calls, controller };
}

test('a generator that is done closes the stream and enqueues nothing after: no error is made at every run’s end', async () => {
  async function* two() {
    yield 1;
    yield 2;
    return 'the end value';
  }
  const { calls, controller } = recordingController();
  const source = generatorSource(two());
  for (let i = 0; i < 3; i += 1) await source.pull!(controller);
  assert.deepEqual(calls, ['enqueue 1', 'enqueue 2', 'close']);
});

test('the installed @langchain/core has the known method, and it is replaced on both its builds', () => {
  const require = createRequire(import.meta.url);
  // the CommonJS build, loaded as a CommonJS graph would load it
  require('@langchain/core/utils/stream');
  assert.equal(streamClasses().length, 2);
  for (const streamClass of streamClasses()) {
    const original = originalFromGenerator(streamClass);
    assert.equal(fingerprint(original), '589478f99ac2d2039401d629d59f0137e0504a8579eaa1ac88ba4d0c5ca0a13b');
  }
  assert.equal(useGeneratorStream(), 2);
  for (const streamClass of streamClasses()) assert.notEqual(streamClass.fromAsyncGenerator, originalFromGenerator(streamClass));
  // a second call changes nothing
  assert.equal(useGeneratorStream(), 2);
});

type Outcome = { chunks: unknown[]; error?: string; returned: unknown[]; isClass: boolean };

/** What a reader of the stream made from a generator gets: its chunks, its error, what the generator was told to return. */
async function read(
  make: (g: AsyncGenerator<unknown>) => IterableReadableStream<unknown>,
  body: (returned: unknown[]) => AsyncGenerator<unknown>,
  stopAfter?: number,
): Promise<Outcome> {
  const returned: unknown[] = [];
  const stream = make(body(returned));
  const outcome: Outcome = { chunks: [], returned, isClass: stream instanceof IterableReadableStream };
  try {
    for await (const chunk of stream) {
      outcome.chunks.push(chunk);
      if (stopAfter !== undefined && outcome.chunks.length >= stopAfter) break;
    }
  } catch (err) {
    outcome.error = (err as Error).message;
  }
  return outcome;
}

test('its streams read, end, fail and stop as the original’s do', async () => {
  useGeneratorStream();
  const replaced = (g: AsyncGenerator<unknown>) => IterableReadableStream.fromAsyncGenerator(g);
  const original = (g: AsyncGenerator<unknown>) => originalFromGenerator(IterableReadableStream).call(IterableReadableStream, g);
  const bodies: [string, (returned: unknown[]) => AsyncGenerator<unknown>, number?][] = [
    [
      'chunks then an end value',
      async function* () {
        yield 'a';
        yield { b: 1 };
        yield undefined;
        return 'end';
      },
    ],
    ['nothing', async function* () {}],
    [
      'a failure midway',
      async function* () {
        yield 1;
        throw new Error('broke');
      },
    ],
    [
      'a reader that stops early',
      async function* (returned) {
        try {
          yield 1;
          yield 2;
          yield 3;
        } finally {
          returned.push('returned');
        }
      },
      1,
    ],
  ];
  for (const [name, body, stopAfter] of bodies) {
    const ours = await read(replaced, body, stopAfter);
    const theirs = await read(original, body, stopAfter);
    assert.deepEqual(ours, theirs, name);
    assert.equal(ours.isClass, true, name);
  }
});
