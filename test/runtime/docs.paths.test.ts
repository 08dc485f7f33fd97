// /docs/assets/ serves swagger-ui's files by name only: a dot segment sent as it is (raw
// HTTP clients do not resolve it) is 404, not a 500 from reading the folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer } from '../support/server.ts';

const rawGet = (port: string, path: string) =>
  new Promise<number | undefined>((resolve) => http.get({ host: '127.0.0.1', port, path }, (res) => (res.resume(), resolve(res.statusCode))));

test('dot segments under /docs/assets/ are 404', async () => {
  const server = await startTestServer({ project: { graphs: {} } });
  try {
    const port = new URL(server.url).port;
    for (const path of ['/docs/assets/..', '/docs/assets/.', '/docs/assets/...']) assert.equal(await rawGet(port, path), 404, path);
    assert.equal(await rawGet(port, '/docs/assets/swagger-ui.css'), 200);
  } finally {
    await server.close();
  }
});
