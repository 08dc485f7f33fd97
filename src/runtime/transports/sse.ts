// Writes Server-Sent Events. Only this module speaks text/event-stream: handlers return an
// async iterable of events, and this drains it into the response, with heart-beats, and
// stops the producer (iterator.return) when the client goes away.
import type { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { SseEvent } from '../contract.ts';
import { jsonOf } from '../../shared/jsonText.ts';
import { scheduleWrite, unscheduleWrite, type HeldFrames } from './streamWrites.ts';
import { isPushable, type PushableStream, type PushedStream } from './pushedStream.ts';

/**
 * A stream that has sent nothing for a whole interval of this gets a heart-beat (a comment line),
 * so a proxy never sees it idle for more than twice this. A stream that sent events meanwhile
 * gets none: with 1,000 subscribers, one each every interval on streams busy anyway was 100
 * writes a second (each through `res.write`'s cork and a tick) the fan-out did not need (issue 87).
 */
const HEARTBEAT_MS = 10_000;
/**
 * What one stream may hold unsent, in bytes: past it the frames are written at once, and
 * no next event is read until the client has taken what was written (the socket's `drain`).
 * Events wait in their run's log, so a slow client reads behind the others instead of the
 * server queuing for it (issue 57: 1,000 subscribers took the server past 3 GB).
 */
export const SSE_UNSENT_LIMIT = 64 * 1024;
/**
 * How long a stream may hold more than SSE_UNSENT_LIMIT unsent, its client taking none of it,
 * before the server drops it (ends the connection): the client resumes with `Last-Event-ID`
 * (or `since`) where it stopped. A client that never reads holds a socket and a stream slot,
 * nothing more, and not for ever (issue 87).
 */
export const SSE_STALLED_MS = 60_000;

const HEARTBEAT_FRAME = Buffer.from(': heartbeat\n\n');

/** Emitted on a response to end its stream (a server shutting down), with what was ready. */
const END_STREAM = Symbol('end stream');

/** Ends the response's event stream, if it is one: the frames ready go out, then the response ends. */
export function endStream(res: ServerResponse): void {
  res.emit(END_STREAM);
}

export function formatSseEvent(event: SseEvent): string {
  let frame = '';
  if (event.event !== undefined) frame += `event: ${singleLine(event.event)}\n`;
  if (event.id !== undefined) frame += `id: ${singleLine(event.id)}\n`;
  const data = typeof event.data === 'string' ? event.data : jsonOf(event.data);
  // JSON text has no line break (JSON.stringify escapes them): split only data that has one
  if (!hasLineBreak(data)) return `${frame}data: ${data}\n\n`;
  for (const line of data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  return frame + '\n';
}

const hasLineBreak = (text: string) => text.includes('\n') || text.includes('\r');

// An event object sent to many streams (a thread's protocol events, one object per event for
// all its subscribers) is framed and encoded once: the bytes are kept with the object, so the
// frame's text, its UTF-8 encoding and its length are made once per event, not per subscriber
// (issue 67: with 1,000 subscribers those were 3.7 s of the server's 60). An event whose data
// comes as bytes (SseEvent.dataBytes) is framed of them, a copy, and its frame is not kept
// (issue 87: kept for its log's life, each frame's Buffer was copied by the main thread's
// scavenges, and its bytes held a second time off the heap).
const frameBytesOf = new WeakMap<SseEvent, Buffer>();
const DATA_START = Buffer.from('data: ');
const FRAME_END = Buffer.from('\n\n');

/** The event's frame as bytes, in pieces: of its data's bytes when it has them, else made once per event object when the object is frozen (shared, so never changed). */
function framePieces(event: SseEvent): readonly Uint8Array[] {
  const data = event.dataBytes?.();
  // a line break in the data splits it into lines (formatSseEvent): JSON text has none
  if (data === undefined || data.some(hasLineBreakByte)) return [keptFrame(event)];
  let head = '';
  if (event.event !== undefined) head += `event: ${singleLine(event.event)}\n`;
  if (event.id !== undefined) head += `id: ${singleLine(event.id)}\n`;
  return [Buffer.from(head), DATA_START, ...data, FRAME_END];
}

const hasLineBreakByte = (piece: Uint8Array) => piece.indexOf(0x0a) >= 0 || piece.indexOf(0x0d) >= 0;

function keptFrame(event: SseEvent): Buffer {
  if (!Object.isFrozen(event)) return Buffer.from(formatSseEvent(event));
  let bytes = frameBytesOf.get(event);
  if (!bytes) frameBytesOf.set(event, (bytes = Buffer.from(formatSseEvent(event))));
  return bytes;
}

/** The event's frame as bytes (see framePieces). */
export function sseFrameBytes(event: SseEvent): Buffer {
  const pieces = framePieces(event);
  return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
}

// A frozen batch (a pushed stream's: the same array for every subscriber at the same place) is
// kept as one chunk of the chunked transfer encoding — its length in hex, CRLF, its frames,
// CRLF — made once: a response that writes straight to its connection sends it as it is, one
// write of the same bytes to every subscriber; its frames alone are a view into it.
const batchChunkOf = new WeakMap<readonly SseEvent[], { chunk: Buffer; frames: Buffer }>();
const CRLF = Buffer.from('\r\n');

function batchChunk(events: readonly SseEvent[]): { chunk: Buffer; frames: Buffer } {
  let made = batchChunkOf.get(events);
  if (!made) {
    const frames = events.flatMap(framePieces);
    const length = frames.reduce((sum, frame) => sum + frame.length, 0);
    const head = Buffer.from(`${length.toString(16)}\r\n`);
    const chunk = Buffer.concat([head, ...frames, CRLF], head.length + length + CRLF.length);
    made = { chunk, frames: chunk.subarray(head.length, head.length + length) };
    batchChunkOf.set(events, made);
  }
  return made;
}

/** A batch's frames as one buffer, made once per batch when the batch is frozen (a pushed stream's: the same for all its readers). */
export function sseBatchBytes(events: readonly SseEvent[]): Buffer {
  if (events.length === 1) return sseFrameBytes(events[0]!);
  if (!Object.isFrozen(events)) return Buffer.concat(events.flatMap(framePieces));
  return batchChunk(events).frames;
}

/**
 * Writes a non-empty batch to the response: a frozen batch to a chunked response that is its
 * connection's current one, on a real connection (not the in-process entry's, which reads what
 * `res.write` is given), goes straight to the connection as its chunk, in one write made now (issue 87: `res.write` frames each write as four pieces, corks the connection and writes
 * them on the next tick, so a pass's writes escaped its time slices, and cost twice the
 * JavaScript); otherwise through `res.write`.
 */
export function writeSseBatch(res: ServerResponse, events: readonly SseEvent[]): void {
  const socket = res.socket;
  if (socket instanceof Socket && socket.writable && res.chunkedEncoding && res.headersSent && !res.writableEnded && Object.isFrozen(events)) {
    socket.write(batchChunk(events).chunk);
  } else res.write(sseBatchBytes(events));
}

function singleLine(value: string): string {
  // a CR or LF in a field would let a payload forge frames
  if (/[\r\n]/.test(value)) throw new Error('SSE event name and id must not contain line breaks');
  return value;
}

export async function writeSse(
  res: ServerResponse,
  status: number,
  events: AsyncIterable<SseEvent>,
  headers: Record<string, string> = {},
  onError?: (err: unknown) => SseEvent | undefined,
  stalledMs = SSE_STALLED_MS,
  heartbeatMs = HEARTBEAT_MS,
): Promise<void> {
  res.writeHead(status, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    ...headers,
  });
  res.flushHeaders?.();
  if (isPushable(events)) return writePushed(res, events, onError, stalledMs, heartbeatMs);
  const iterator = events[Symbol.asyncIterator]();
  let closed = false;
  const onClose = () => {
    closed = true;
    void iterator.return?.();
  };
  res.on('close', onClose);
  // The frames ready in one turn of the event loop go out in one write: a write is a system
  // call (and a chunk of the chunked encoding), and a run's step publishes several events at
  // once to every subscriber of its thread (issue 57: a write per frame per subscriber was a
  // tenth of the server's time under fan-out). streamWrites.ts writes them at the turn's end.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const held: HeldFrames = {
    write: () => {
      if (pending.length && !closed) {
        // corked, the frames go out as one chunk of the chunked encoding, in one system call
        res.cork();
        for (const frame of pending) res.write(frame);
        res.uncork();
      }
      pending = [];
      pendingBytes = 0;
    },
  };
  const flush = () => {
    unscheduleWrite(held);
    held.write();
  };
  const queue = (frame: Buffer) => {
    pending.push(frame);
    pendingBytes += frame.length;
    scheduleWrite(held);
  };
  // events queued since the last heart-beat's turn: the stream is not idle
  let sent = false;
  // none while the client takes nothing: it would add to what waits for it
  const heartbeat = setInterval(() => {
    if (sent) sent = false;
    else if (!res.writableNeedDrain) queue(HEARTBEAT_FRAME);
  }, heartbeatMs);
  heartbeat.unref();
  const drained = () => untilDrained(res, stalledMs);
  // flushed, then marked closed before the end, so nothing is written after it
  const end = () => {
    flush();
    onClose();
    res.end();
  };
  res.once(END_STREAM, end);
  try {
    while (!closed) {
      if (pendingBytes > SSE_UNSENT_LIMIT) flush();
      if (res.writableNeedDrain) await drained();
      if (closed) break;
      const next = await iterator.next();
      if (next.done || closed) break;
      queue(sseFrameBytes(next.value));
      sent = true;
    }
  } catch (err) {
    const frame = onError?.(err);
    if (frame && !closed) queue(Buffer.from(formatSseEvent(frame)));
  } finally {
    clearInterval(heartbeat);
    flush();
    res.off('close', onClose);
    res.off(END_STREAM, end);
    if (!res.writableEnded) res.end();
  }
}

/**
 * Resolves when the response has taken what it holds (or closed); a client that takes nothing
 * for `stalledMs` is dropped. The connection's own `drain` counts: what was written straight to
 * it (writeSseBatch) makes the response emit none.
 */
function untilDrained(res: ServerResponse, stalledMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const socket = res.socket;
    const done = () => {
      clearTimeout(stalled);
      res.off('drain', done);
      res.off('close', done);
      socket?.off('drain', done);
      resolve();
    };
    const stalled = setTimeout(() => res.destroy(), stalledMs);
    stalled.unref();
    res.on('drain', done);
    res.on('close', done);
    socket?.on('drain', done);
  });
}

/**
 * A pushed stream (pushedStream.ts): each batch the stream hands over is written at once, as
 * one write of bytes made once per batch; when the response then holds more than
 * SSE_UNSENT_LIMIT unsent the stream is paused, and resumed once the client has taken it (or the
 * client dropped after SSE_STALLED_MS without taking any).
 */
function writePushed(
  res: ServerResponse,
  events: PushableStream<SseEvent>,
  onError: ((err: unknown) => SseEvent | undefined) | undefined,
  stalledMs: number,
  heartbeatMs: number,
): Promise<void> {
  return new Promise<void>((resolve) => {
    let closed = false;
    let paused = false;
    let pushed: PushedStream | undefined;
    // a batch written since the last heart-beat's turn: the stream is not idle
    let sent = false;
    const heartbeat = setInterval(() => {
      if (sent) sent = false;
      else if (!paused && !closed) res.write(HEARTBEAT_FRAME);
    }, heartbeatMs);
    heartbeat.unref();
    const finish = (frame?: SseEvent) => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      res.off('close', finish);
      res.off(END_STREAM, finish);
      pushed?.close();
      if (frame && !res.destroyed) res.write(Buffer.from(formatSseEvent(frame)));
      if (!res.writableEnded) res.end();
      resolve();
    };
    res.on('close', finish);
    res.once(END_STREAM, finish);
    pushed = events.push({
      deliver(batch) {
        // a client gone takes nothing more: `false`, or a producer delivering synchronously
        // while the answer is true would never yield for the close to be seen (a CI run spun a
        // core for ten minutes on a destroyed response)
        if (closed || res.destroyed) return false;
        if (batch.length) {
          writeSseBatch(res, batch);
          sent = true;
        }
        if (res.writableLength <= SSE_UNSENT_LIMIT) return true;
        paused = true;
        void untilDrained(res, stalledMs).then(() => {
          paused = false;
          if (!closed) pushed?.resume();
        });
        return false;
      },
      fail(err) {
        finish(onError?.(err));
      },
    });
    // the stream ended while it was being pushed to, or the client went before it began
    if (closed) pushed.close();
    else if (res.destroyed) finish();
  });
}
