// The project file: langgraph.json read unchanged (discovery order, object graph form, env),
// validated against spec/project.schema.json with errors that name the key, and warnings for
// what a person should know at start.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { loadConfig } from '../../../src/runtime/config.ts';
import { applyProjectEnv, discoverProjectFile, readProjectFile } from '../../../src/runtime/project/project.ts';
import { ROOT, spawnServer, tempDir } from '../../support/server.ts';

function project(files: Record<string, string>): string {
  const dir = tempDir('agentplane-project-');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const graphModule = `export async function hello(state, ctx) {
  return { messages: [{ role: 'ai', content: 'greeting=' + process.env.GREETING + ' secret=' + (process.env.FROM_OBJECT ?? '-') }] };
}
`;

describe('project file', () => {
  it('finds agentplane.json first, then langgraph.json, and says when there is neither', () => {
    const both = project({ 'agentplane.json': '{"graphs": {}}', 'langgraph.json': '{"graphs": {}}' });
    assert.equal(discoverProjectFile(undefined, both), path.join(both, 'agentplane.json'));
    const upstream = project({ 'langgraph.json': '{"graphs": {}}' });
    assert.equal(discoverProjectFile(undefined, upstream), path.join(upstream, 'langgraph.json'));
    const none = project({});
    assert.equal(discoverProjectFile(undefined, none), null);
    const config = loadConfig([], {}, none);
    assert.match(config.projectWarnings.join('\n'), /no project file \(agentplane.json or langgraph.json\)/);
    assert.throws(() => discoverProjectFile('missing.json', none), /missing\.json: not found/);
  });

  it("--examples serves the shipped example project instead of the folder's, and refuses --config beside it", () => {
    const own = project({ 'langgraph.json': '{"graphs": {"mine": "./g.ts:g"}}' });
    const config = loadConfig(['--examples'], {}, own);
    assert.equal(config.configFile, path.join(ROOT, 'examples', 'agentplane.json'));
    assert.deepEqual(Object.keys(config.project.graphs ?? {}).sort(), ['agent', 'approval', 'breakpoint', 'connected', 'echo']);
    assert.match(config.projectWarnings.join('\n'), /--examples: serving the shipped example graphs; .*langgraph\.json is not read/);
    assert.equal(loadConfig([], { AGENTPLANE_EXAMPLES: '1' }, project({})).configFile, path.join(ROOT, 'examples', 'agentplane.json'));
    assert.throws(
      () => loadConfig(['--examples', '--config', 'langgraph.json'], {}, own),
      /--examples \(AGENTPLANE_EXAMPLES\) .* cannot be combined with --config/,
    );
    assert.throws(() => loadConfig([], { AGENTPLANE_EXAMPLES: 'yes', AGENTPLANE_CONFIG: 'langgraph.json' }, own), /cannot be combined/);
  });

  it('accepts the upstream object graph form and warns about unknown and ignored keys', () => {
    const dir = project({
      'langgraph.json': JSON.stringify({
        graphs: { agent: { path: './src/graph.ts:graph', description: 'mine' } },
        grahps: {},
        python_version: '3.12',
        ui: { chat: './ui.tsx' },
        node_version: '20',
      }),
    });
    const loaded = readProjectFile(path.join(dir, 'langgraph.json'));
    assert.deepEqual(loaded.project.graphs, { agent: { path: './src/graph.ts:graph', description: 'mine' } });
    const text = loaded.warnings.join('\n');
    assert.match(text, /unknown key "grahps"/);
    assert.match(text, /"python_version" in .* is ignored/);
    // generative UI is served (test/handlers/agent-server/ui.test.ts): no notice
    assert.doesNotMatch(text, /"ui"/);
    assert.deepEqual(loaded.project.ui, { chat: './ui.tsx' });
  });

  it('refuses a value of the wrong type, naming the key and what was expected', () => {
    const dir = project({ 'langgraph.json': JSON.stringify({ graphs: { a: './a.ts:a' }, http: { disable_a2a: 'yes' } }) });
    assert.throws(() => readProjectFile(path.join(dir, 'langgraph.json')), /langgraph\.json: http\.disable_a2a must be boolean/);
    const bad = project({ 'langgraph.json': '{"graphs": {"a": 3}}' });
    assert.throws(() => readProjectFile(path.join(bad, 'langgraph.json')), /graphs\.a/);
    const notJson = project({ 'langgraph.json': 'nope' });
    assert.throws(() => readProjectFile(path.join(notJson, 'langgraph.json')), /langgraph\.json: is not valid JSON/);
    // a default ttl past any date would fail every write that takes it: refused at start, as on the API
    const forever = project({ 'langgraph.json': JSON.stringify({ graphs: { a: './a.ts:a' }, store: { ttl: { default_ttl: 1e12 } } }) });
    assert.throws(() => readProjectFile(path.join(forever, 'langgraph.json')), /store\.ttl\.default_ttl must be <= 52596000/);
    const noGraphs = project({ 'langgraph.json': '{}' });
    assert.match(readProjectFile(path.join(noGraphs, 'langgraph.json')).warnings.join(), /names no graphs/);
  });

  it('loads env from a dotenv file or an object, never overriding what is set', () => {
    const dir = project({ 'langgraph.json': '{"graphs": {}, "env": ".env"}', '.env': 'GREETING=hi\nALREADY=from-file\n' });
    const env: Record<string, string | undefined> = { ALREADY: 'from-process' };
    assert.deepEqual(applyProjectEnv(readProjectFile(path.join(dir, 'langgraph.json')), env), ['GREETING']);
    assert.equal(env.GREETING, 'hi');
    assert.equal(env.ALREADY, 'from-process');
    const objectDir = project({ 'langgraph.json': '{"graphs": {}, "env": {"X": "1"}}' });
    const env2: Record<string, string | undefined> = {};
    applyProjectEnv(readProjectFile(path.join(objectDir, 'langgraph.json')), env2);
    assert.equal(env2.X, '1');
    const missing = project({ 'langgraph.json': '{"graphs": {}, "env": ".env.missing"}' });
    assert.throws(() => applyProjectEnv(readProjectFile(path.join(missing, 'langgraph.json')), {}), /\.env\.missing, which cannot be read/);
  });

  it('serves a langgraph.json project found in the working directory, with its env reaching the graph', async () => {
    const dir = project({
      'langgraph.json': JSON.stringify({ graphs: { hello: { path: './src/graph.mjs:hello', description: 'says hello' } }, env: '.env' }),
      '.env': 'GREETING=bonjour\n',
      'src/graph.mjs': graphModule,
    });
    const server = await spawnServer(['--data', tempDir()], {}, dir);
    try {
      const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
      const [assistant] = await client.assistants.search({ graphId: 'hello' });
      assert.equal(assistant.graph_id, 'hello');
      const thread = await client.threads.create();
      const result = (await client.runs.wait(thread.thread_id, 'hello', { input: { messages: [{ role: 'user', content: 'hi' }] } })) as {
        messages: { content: string }[];
      };
      assert.equal(result.messages.at(-1)!.content, 'greeting=bonjour secret=-');
      assert.match(server.output(), /environment from the project file/);
      assert.doesNotMatch(server.output(), /bonjour/, 'values are never logged');
    } finally {
      await server.kill('SIGTERM');
    }
    assert.ok(fs.existsSync(path.join(ROOT, 'package.json')));
  });
});
