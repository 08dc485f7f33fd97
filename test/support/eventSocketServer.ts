// A plain node:http server with the protocol WebSocket (runtime/transports/websocket/protocolSocket.ts)
// on it, whose door answers the event operation (a subscription) with the test's events and
// anything else with a 404: the socket's writing seen without the application behind it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveProtocolSocket } from '../../src/runtime/transports/websocket/protocolSocket.ts';
import type { SocketDoor } from '../../src/runtime/transports/websocket/socketDoor.ts';
import type { SseEvent } from '../../src/runtime/contract.ts';

/** The server, listening on a port of its own; `events()` is asked for each subscription's stream. */
export async function eventSocketServer(events: () => AsyncIterable<SseEvent>): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const door: SocketDoor = {
    admit: async () => ({
      client: 'peer:test',
      release: () => undefined,
      call: async (operationId) => (operationId === 'streamThreadEvents' ? { status: 200, stream: events() } : { status: 404, json: '{}' }),
    }),
  };
  serveProtocolSocket(server, door, { maxMessageBytes: 1024 * 1024, idleMs: 60_000 });
  return { server, port: (server.address() as AddressInfo).port };
}
