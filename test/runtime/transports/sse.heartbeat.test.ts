// Heart-beats go only to a stream that has sent nothing for a whole interval (issue 87: with
// 1,000 subscribers of busy threads they were writes the fan-out did not need): a stream whose
// events keep coming gets none, a silent one gets them, pushed or pulled alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeSse } from '../../../src/runtime/transports/sse.ts';
import type { BatchSink, PushableStream } from '../../../src/runtime/transports/pushedStream.ts';
import type { SseEvent } from '../../../src/runtime/contract.ts';

const HEARTBEAT_MS = 100;
/** How often a busy stream's events come: many times an interval, so every interval has some. */
const EVENT_MS = 5;

const event = (n: number): SseEvent => Object.freeze({ event: 'values', id: String(n), data: { n } });

/** A pushed stream that delivers one event every EVENT_MS while `busy`, nothing otherwise. */
function pushed(busy: boolean): PushableStream<SseEvent> {
  return {
    [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
    push(sink: BatchSink<SseEvent>) {
      let n = 0;
      const timer = setInterval(() => busy && sink.deliver(Object.freeze([event((n += 1))])), EVENT_MS);
      return { resume: () => {}, close: () => clearInterval(timer) };
    },
  };
}

/** A pulled stream: one event every EVENT_MS while `busy`, else one that never comes. */
async function* pulled(busy: boolean): AsyncGenerator<SseEvent> {
  for (let n = 1; ; n += 1) {
    await new Promise((resolve) => (busy ? setTimeout(resolve, EVENT_MS) : undefined));
    yield event(n);
  }
}

/** What the client has read of the stream (events, heart-beats) once `until` says it has seen enough. */
async function read(stream: AsyncIterable<SseEvent>, until: (seen: { events: number; heartbeats: number }) => boolean) {
  const server = http.createServer((_req, res) => void writeSse(res, 200, stream, {}, undefined, undefined, HEARTBEAT_MS));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const seen = { events: 0, heartbeats: 0 };
  try {
    await new Promise<void>((resolve, reject) => {
      http
        .get({ port, host: '127.0.0.1', path: '/' }, (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            seen.events += chunk.split('\n').filter((line) => line.startsWith('id: ')).length;
            seen.heartbeats += chunk.split('\n').filter((line) => line === ': heartbeat').length;
            if (until(seen)) {
              res.destroy();
              resolve();
            }
          });
        })
        .on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return seen;
}

// a stream's events at EVENT_MS come ~HEARTBEAT_MS / EVENT_MS times an interval: 100 of them span
// five intervals (more when the machine is slow, the heart-beat's timer as late as theirs)
const BUSY_EVENTS = 5 * (HEARTBEAT_MS / EVENT_MS);

for (const [kind, stream] of [
  ['pushed', pushed],
  ['pulled', pulled],
] as const) {
  test(`a ${kind} stream whose events keep coming gets no heart-beat`, { timeout: 60_000 }, async () => {
    const seen = await read(stream(true), (s) => s.events >= BUSY_EVENTS);
    assert.equal(seen.heartbeats, 0, `${seen.heartbeats} heart-beats among ${seen.events} events`);
  });

  test(`a silent ${kind} stream gets heart-beats`, { timeout: 60_000 }, async () => {
    const seen = await read(stream(false), (s) => s.heartbeats >= 2);
    assert.equal(seen.events, 0);
    assert.ok(seen.heartbeats >= 2);
  });
}
