// The protocol WebSocket sends a thread's events as frames made once per event
// (webSocketFrame.ts): they must be the bytes ws itself puts on the wire for a server's text
// message, at every length the frame header encodes differently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ws from 'ws';
import { webSocketTextFrame } from '../../../../src/runtime/transports/websocket/webSocketFrame.ts';

// ws's own framing (exported by the package, not in its type declarations)
const { Sender } = ws as unknown as { Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] } };

test("an event's frame is the bytes ws sends for a server's text message, at every header length", () => {
  for (const length of [0, 1, 125, 126, 127, 65_535, 65_536, 70_000]) {
    const payload = Buffer.from('é'.repeat(length).slice(0, length), 'latin1');
    const ws = Buffer.concat(Sender.frame(payload, { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false } as never) as unknown as Buffer[]);
    assert.ok(webSocketTextFrame(payload).equals(ws), `${length} bytes`);
  }
});
