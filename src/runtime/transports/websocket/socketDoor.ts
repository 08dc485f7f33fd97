// The door a WebSocket comes in by (runtime/transports/websocket/protocolSocket.ts): the request pipeline admits the
// upgrade as it admits a REST call on the same path — API key, tenant, the project's custom
// auth, the client's caps — before any `101`, and then serves the socket's commands and
// subscriptions in process, by the same operations' validators and handlers. There is no
// loopback request and no second auth path.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SseEvent } from '../../contract.ts';
import type { HttpReply } from '../../errors.ts';

/** An operation's answer on the socket: its JSON as REST would write it, or its event stream. */
export type SocketReply = { status: number; json: string } | { status: number; stream: AsyncIterable<SseEvent> };

/** A socket let in: whose it is, and the operations it may call as its caller. */
export interface AdmittedSocket {
  /** Whose caps the socket counts against: `tenant:<id>`, else `peer:<the client's address>`. */
  client: string;
  /** Gives the socket's slot back (call once the socket has closed; calling again does nothing). */
  release(): void;
  /**
   * Calls operation `operationId` on the upgrade's path (its thread) with `body`, as REST would
   * for this caller; a stream it answers lasts until it ends or `signal` aborts.
   */
  call(operationId: string, body: unknown, signal: AbortSignal): Promise<SocketReply>;
}

export interface SocketDoor {
  /** Admits the upgrade `req` as REST admits `GET` on its path: the socket, or the HTTP answer refusing it. */
  admit(req: IncomingMessage): Promise<AdmittedSocket | HttpReply>;
}

/** How long a refused upgrade's answer may take to leave before its socket is cut, read or not. */
export const REFUSAL_FLUSH_MS = 1_000;

/**
 * Answers a refused upgrade on its raw socket as REST answers (status, headers, JSON body), then
 * closes it: destroyed once the answer is written, or after REFUSAL_FLUSH_MS. `end()` alone only
 * half-closes (node's HTTP server allows half-open sockets), so a client that never sent its own
 * FIN held the descriptor for as long as it liked: 1,100 of them starved every other client.
 */
export function refuseUpgrade(socket: Duplex, reply: HttpReply): void {
  if (socket.destroyed) return;
  const cut = setTimeout(() => socket.destroy(), REFUSAL_FLUSH_MS).unref();
  socket.once('close', () => clearTimeout(cut));
  socket.end(answerOf(reply), () => socket.destroy());
}

/** The answers of frozen replies (the same refusal for every key-less upgrade, errors.ts's fixedError), written once each. */
const answers = new WeakMap<HttpReply, string>();

/** The reply as an HTTP/1.1 answer that closes the connection. */
function answerOf(reply: HttpReply): string {
  const known = answers.get(reply);
  if (known !== undefined) return known;
  const body = reply.body === undefined ? '' : JSON.stringify(reply.body);
  const headers: Record<string, string | number> = {
    ...(body ? { 'content-type': 'application/json' } : {}),
    'content-length': Buffer.byteLength(body),
    connection: 'close',
    ...reply.headers,
  };
  // a header the project's auth set is written only if it is one header line (node refuses others on a response too)
  const lines = Object.entries(headers).filter(([name, value]) => !/[\r\n:]/.test(name) && !/[\r\n]/.test(String(value)));
  const head = [`HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ''}`, ...lines.map(([name, value]) => `${name}: ${value}`)];
  const answer = `${head.join('\r\n')}\r\n\r\n${body}`;
  if (Object.isFrozen(reply) && Object.isFrozen(reply.body) && (!reply.headers || Object.isFrozen(reply.headers))) answers.set(reply, answer);
  return answer;
}
