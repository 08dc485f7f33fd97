// The specification documents served at /spec/ name the server that served them — in
// `servers` and in examples that carry its address (agent cards) — so a client generated
// from a downloaded document reaches this server. The files under spec/ name the default
// address, which is where `agentplane serve` listens when no port is given.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../../src/runtime/config.ts';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

type Json = any;
const DOCUMENTS = ['control-plane.openapi.yaml', 'agent-server.openapi.yaml', 'a2a.openrpc.json', 'a2a-v1.openrpc.json'];
const parse = (name: string, text: string): Json => (name.endsWith('.json') ? JSON.parse(text) : YAML.parse(text));
const servedText = async (server: InProcessApp, name: string) => {
  const res = await server.fetch(`/spec/${name}`);
  assert.equal(res.status, 200, name);
  return res.text();
};
/** The agent card examples of the agent-server document (the answer of getAgentCard and the AgentCard schema). */
const cardExampleUrls = (doc: Json): string[] => [
  doc.paths['/.well-known/agent-card.json'].get.responses['200'].content['application/json'].example.url,
  ...doc.components.schemas.AgentCard.examples.map((e: Json) => e.url),
];

describe('the documents under /spec/ name the server that served them', () => {
  let server: InProcessApp;
  let publicServer: InProcessApp;
  before(async () => {
    [server, publicServer] = await Promise.all([
      areaApp('control-plane', { dataDir: null }),
      areaApp('control-plane', { dataDir: null, env: { AGENTPLANE_PUBLIC_URL: 'https://agents.example.org' } }),
    ]);
  });
  after(async () => {
    await server?.close();
    await publicServer?.close();
  });

  it('the files name the default address, on the port the server listens on by default', () => {
    const defaultBase = `http://127.0.0.1:${loadConfig([], {}, ROOT).port}`;
    for (const name of DOCUMENTS) {
      const doc = parse(name, fs.readFileSync(path.join(ROOT, 'spec', name), 'utf8'));
      const expected = name.startsWith('a2a') ? `${defaultBase}/a2a/agent` : defaultBase;
      assert.equal(doc.servers[0].url, expected, name);
    }
  });

  it("served: `servers` and the agent card examples carry this server's address, not the default", async () => {
    for (const name of DOCUMENTS) {
      const text = await servedText(server, name);
      assert.doesNotMatch(text, /127\.0\.0\.1:8123|localhost:2024/, name);
      const doc = parse(name, text);
      assert.equal(doc.servers.length, 1, name);
      assert.equal(doc.servers[0].url, name.startsWith('a2a') ? `${server.url}/a2a/agent` : server.url, name);
      if (name.startsWith('agent-server')) assert.deepEqual(cardExampleUrls(doc), [`${server.url}/a2a/agent`, `${server.url}/a2a/agent`]);
    }
    // the rest of the document is the file as written
    const file = fs.readFileSync(path.join(ROOT, 'spec/agent-server.openapi.yaml'), 'utf8');
    assert.equal(
      (await servedText(server, 'agent-server.openapi.yaml')).length,
      file.length + (server.url.length - 'http://127.0.0.1:8123'.length) * file.split('http://127.0.0.1:8123').slice(1).length,
    );
  });

  it("the console's copy (/docs) shows this server's address in the agent card examples too", async () => {
    const res = await server.fetch('/docs/console/agent-server.json');
    assert.equal(res.status, 200);
    const doc = (await res.json()) as Json;
    assert.deepEqual(
      doc.servers.map((s: Json) => s.url),
      ['/'],
      'Try it out calls the server that served the page',
    );
    assert.deepEqual(cardExampleUrls(doc), [`${server.url}/a2a/agent`, `${server.url}/a2a/agent`]);
  });

  it('served with AGENTPLANE_PUBLIC_URL set: that address', async () => {
    const doc = parse('a2a.openrpc.json', await servedText(publicServer, 'a2a.openrpc.json'));
    assert.equal(doc.servers[0].url, 'https://agents.example.org/a2a/agent');
    const agentServer = parse('agent-server.openapi.yaml', await servedText(publicServer, 'agent-server.openapi.yaml'));
    assert.equal(agentServer.servers[0].url, 'https://agents.example.org');
  });
});
