// A browser on another origin (agent-chat-ui on http://localhost:3000) can call the server:
// preflight on every route, the headers a browser needs on answers; http.cors restricts
// origins. GET /info answers as agent-chat-ui expects at start.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { areaApp } from '../../../support/area.ts';

const preflight = (server: { fetch: typeof fetch }, url: string, origin: string, method = 'POST', headers = 'content-type,x-api-key') =>
  server.fetch(url, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers } });

describe('CORS', () => {
  it('lets a loopback origin call the API by default: preflight and the answer', async () => {
    const server = await areaApp('agent-server', { project: { graphs: { echo: './examples/graphs/echo.ts:echo' } } });
    try {
      const pre = await preflight(server, `${server.url}/threads`, 'http://localhost:3000');
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:3000');
      assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
      assert.equal(pre.headers.get('access-control-allow-headers'), 'content-type,x-api-key');
      assert.equal(pre.headers.get('access-control-allow-credentials'), 'true');
      // every route, including a templated one and the runs stream
      assert.equal((await preflight(server, `${server.url}/threads/0f3c1c9e-6a4b-4d47-9a3e-2f5d8b7c1a10/runs/stream`, 'http://127.0.0.1:5173')).status, 204);

      const created = await server.fetch(`${server.url}/threads`, {
        method: 'POST',
        headers: { Origin: 'http://localhost:3000', 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(created.status, 200);
      assert.equal(created.headers.get('access-control-allow-origin'), 'http://localhost:3000');
      assert.match(created.headers.get('access-control-expose-headers') ?? '', /Content-Location/);
      assert.equal(created.headers.get('vary'), 'Origin');

      // a page from anywhere else gets no CORS headers, so the browser blocks it
      const foreign = await preflight(server, `${server.url}/threads`, 'https://evil.example');
      assert.equal(foreign.status, 400);
      assert.equal(foreign.headers.get('access-control-allow-origin'), null);
      const simple = await server.fetch(`${server.url}/ok`, { headers: { Origin: 'https://evil.example' } });
      assert.equal(simple.headers.get('access-control-allow-origin'), null);
    } finally {
      await server.close();
    }
  });

  it('follows http.cors from the project file', async () => {
    const server = await areaApp('agent-server', {
      project: {
        graphs: {},
        http: {
          cors: {
            allow_origins: ['https://app.example'],
            allow_methods: ['GET', 'POST'],
            allow_headers: ['content-type'],
            max_age: 60,
            expose_headers: ['X-Custom'],
          },
        },
      },
    });
    try {
      const pre = await preflight(server, `${server.url}/threads/search`, 'https://app.example');
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.equal(pre.headers.get('access-control-allow-methods'), 'GET, POST');
      assert.equal(pre.headers.get('access-control-allow-headers'), 'content-type');
      assert.equal(pre.headers.get('access-control-max-age'), '60');
      assert.equal(pre.headers.get('access-control-allow-credentials'), null);
      const ok = await server.fetch(`${server.url}/ok`, { headers: { Origin: 'https://app.example' } });
      assert.match(ok.headers.get('access-control-expose-headers') ?? '', /X-Custom/);
      // the loopback default no longer applies
      assert.equal((await preflight(server, `${server.url}/threads`, 'http://localhost:3000')).status, 400);
    } finally {
      await server.close();
    }
  });
});

describe('GET /info', () => {
  it('answers version and flags in the upstream shape', async () => {
    const server = await areaApp('agent-server', { project: { graphs: {}, http: { disable_mcp: true } } });
    try {
      const info = (await (await server.fetch(`${server.url}/info`)).json()) as {
        version: string;
        langgraph_js_version: string;
        context: string;
        flags: Record<string, boolean>;
      };
      assert.equal(typeof info.version, 'string');
      assert.match(info.langgraph_js_version, /^\d+\.\d+\.\d+/);
      assert.equal(info.context, 'js');
      assert.equal(info.flags.assistants, true);
      assert.equal(info.flags.crons, true);
      assert.equal(info.flags.mcp, false);
    } finally {
      await server.close();
    }
  });
});
