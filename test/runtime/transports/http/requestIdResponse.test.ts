// RequestIdResponse (src/runtime/transports/http/requestIdResponse.ts) on a bare node server: the id it was
// given goes out in the head however the head is written (writeHead with headers, with a raw
// list, implicitly), and an answer's own X-Request-Id, in its head or set before, is kept.
// The same on agentplane's own answers: requestIdResponse.e2e.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { RequestIdResponse, ID_LINE_IN_HEAD } from '../../../../src/runtime/transports/http/requestIdResponse.ts';

test('an answer that sets X-Request-Id itself, in its head or before it, keeps its own; raw header lists get the id too', async () => {
  const ways: Record<string, (res: RequestIdResponse) => void> = {
    '/head': (res) => res.writeHead(200, { 'x-REQUEST-id': 'own' }).end(),
    '/set': (res) => {
      res.setHeader('X-Request-Id', 'own');
      res.end('x');
    },
    '/raw': (res) => res.writeHead(200, 'Fine', ['Content-Type', 'text/plain']).end('x'),
    '/implicit': (res) => res.end('x'),
    '/now': (res) => {
      res.setRequestIdNow();
      assert.equal(res.getHeader('x-request-id'), 'made');
      res.writeHead(201).end();
    },
  };
  const plain = http.createServer({ ServerResponse: RequestIdResponse }, (req, res) => {
    const answer = res as RequestIdResponse;
    answer.sendRequestId('made');
    ways[req.url!](answer);
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(plain.address() as { port: number }).port}`;
    const got: Record<string, string | null> = {};
    for (const path of Object.keys(ways)) {
      const res = await fetch(url + path);
      await res.arrayBuffer();
      got[path] = res.headers.get('x-request-id');
    }
    assert.deepEqual(got, { '/head': 'own', '/set': 'own', '/raw': 'made', '/implicit': 'made', '/now': 'made' });
  } finally {
    plain.closeAllConnections();
    await new Promise((resolve) => plain.close(resolve));
  }
});

/**
 * The head as the response wrote it before the id went in by the status line: writeHead given an
 * object beginning with X-Request-Id and the answer's own headers after it (when nothing was set
 * one by one), for the bytes of both to be compared.
 */
class ObjectHeadResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {
  id: string | undefined;
  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const id = this.id;
    this.id = undefined;
    const at = typeof rest[0] === 'string' ? 1 : 0;
    if (id !== undefined) rest[at] = { 'X-Request-Id': id, ...(rest[at] as object | undefined) };
    return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this)(statusCode, ...rest);
  }
}

/** What each path answers, through either kind of response; a head refused (a bad status, a bad id) is followed by a 500. */
const HEADS: Record<string, (res: http.ServerResponse) => void> = {
  '/json': (res) => res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 2 }).end('{}'),
  '/reason': (res) => res.writeHead(201, 'Made', { 'Content-Type': 'text/plain', 'Retry-After': '3' }).end('x'),
  '/implicit': (res) => res.end('implicit'),
  '/bare': (res) => res.writeHead(204).end(),
  '/bad-status': (res) => res.writeHead(99, { 'Content-Type': 'text/plain' }),
  '/bad-id': (res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('x'),
};

/** A bare node server answering HEADS through `Response`, each answer given `id` as its X-Request-Id. */
async function headServer(Response: typeof http.ServerResponse, give: (res: http.ServerResponse, id: string) => void): Promise<http.Server> {
  const server = http.createServer({ ServerResponse: Response }, (req, res) => {
    give(res, req.url === '/bad-id' ? 'client\x7fid' : 'c0ffee0000-1z');
    try {
      HEADS[req.url!](res);
    } catch {
      if (!res.headersSent) res.writeHead(500, { 'Content-Length': 0 }).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The head a raw request of `path` is answered with, its Date line left out (the two servers answer in different seconds at times). */
function rawHead(server: http.Server, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(text.slice(0, text.indexOf('\r\n\r\n')).replace(/\r\nDate: [^\r]*/, '')));
    socket.end(`GET ${path} HTTP/1.1\r\nHost: here\r\nConnection: close\r\n\r\n`);
  });
}

test('the id put in the head by the status line makes the head byte for byte as a head object beginning with it did', async () => {
  assert.ok(ID_LINE_IN_HEAD, "on this Node the id goes in by the status line (else every head takes Node's checks again)");
  const ours = await headServer(RequestIdResponse as typeof http.ServerResponse, (res, id) =>
    (res as RequestIdResponse).sendRequestId(id, id.startsWith('c0ffee')),
  );
  const before = await headServer(ObjectHeadResponse, (res, id) => ((res as ObjectHeadResponse).id = id));
  try {
    for (const path of Object.keys(HEADS)) {
      const [mine, theirs] = [await rawHead(ours, path), await rawHead(before, path)];
      assert.equal(mine, theirs, path);
      if (path === '/json') assert.match(mine, /^HTTP\/1\.1 200 OK\r\nX-Request-Id: c0ffee0000-1z\r\nContent-Type: application\/json\r\n/);
      if (path.startsWith('/bad')) assert.match(mine, /^HTTP\/1\.1 500 /, `${path}: refused by Node as before`);
    }
  } finally {
    for (const server of [ours, before]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
});
