// A server's WebSocket text message as the bytes on the wire (RFC 6455 §5.2): one final frame,
// opcode 1, unmasked (a server never masks), no extension bits (per-message deflate is off).
// Made once per event, the same bytes go to every socket subscribed to the thread (issue 67:
// ws frames each message anew for each socket — a header, a list, its own write).

const TEXT_FINAL = 0x81;

export function webSocketTextFrame(payload: Buffer): Buffer {
  return Buffer.concat([webSocketTextHeader(payload.length), payload]);
}

/** The header of a text message of `n` bytes: the frame is it, then the payload. */
export function webSocketTextHeader(n: number): Buffer {
  const header = Buffer.allocUnsafe(n < 126 ? 2 : n < 65536 ? 4 : 10);
  header[0] = TEXT_FINAL;
  if (n < 126) header[1] = n;
  else if (n < 65536) {
    header[1] = 126;
    header.writeUInt16BE(n, 2);
  } else {
    header[1] = 127;
    header.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    header.writeUInt32BE(n >>> 0, 6);
  }
  return header;
}
