// /docs/assets/ serves swagger-ui's files by name only: a dot segment sent as it is (raw
// HTTP clients do not resolve it) is 404, not a 500 from reading the folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

/** The status of a GET of `path` sent as it is (a Request would resolve its dot segments). */
const rawGet = async (server: InProcessApp, path: string) => {
  const res = await server.handle(new Request(`${server.url}/docs/assets/`), { rawPath: path });
  await res.body?.cancel();
  return res.status;
};

test('dot segments under /docs/assets/ are 404', async () => {
  const server = await areaApp('control-plane', { project: { graphs: {} } });
  try {
    for (const path of ['/docs/assets/..', '/docs/assets/.', '/docs/assets/...']) assert.equal(await rawGet(server, path), 404, path);
    assert.equal(await rawGet(server, '/docs/assets/swagger-ui.css'), 200);
  } finally {
    await server.close();
  }
});
