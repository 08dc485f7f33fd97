// RequestIdResponse (src/runtime/transports/http/requestIdResponse.ts) on a bare node server: the id it was
// given goes out in the head however the head is written (writeHead with headers, with a raw
// list, implicitly), and an answer's own X-Request-Id, in its head or set before, is kept.
// The same on agentplane's own answers: requestIdResponse.e2e.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { RequestIdResponse } from '../../../../src/runtime/transports/http/requestIdResponse.ts';

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
