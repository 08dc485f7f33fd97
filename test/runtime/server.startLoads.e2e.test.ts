// Start loads only what serving needs: the PostgreSQL driver waits for a DATABASE_URL, the
// MCP SDK for the first MCP request, the OpenTelemetry SDK for the first run, the Hono adapter
// for a project with an http.app, jose for an agent card signing key, the CLI's other commands
// (init's scaffold, build's image builder, the conformance suite) for those commands, the local and container deploy
// targets for their first use, the control plane's handlers for the moment the server answers, its request
// validators and reply serializers for its first request, the agent server's body validators for its first request
// with a body, the two OpenAPI documents' modules for the first read of a whole document (the console, the mock), and the reply serializers'
// validator (Ajv) for the first reply that needs one (each costs start time, which is bounded: ≤ 1 s to the first 200). Checked on
// the shipped entry point with the shipped project file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { ROOT, tempDir } from '../support/server.ts';
import { logLine } from '../support/logLines.ts';

test('the server on the embedded store answers without having loaded the pg driver, the MCP SDK or the OpenTelemetry SDK; MCP loads it on demand', async () => {
  const loads = path.join(tempDir(), 'loads.txt');
  fs.writeFileSync(loads, '');
  const key = 'start-loads-key';
  // the shipped project file, its paths made absolute, in a folder of its own, one graph described
  // for this run alone: a start that checks the graphs before it answers (other entries are
  // another key for the check an earlier start remembered, compose/graphsAtStart.ts; a second
  // start's loads are the test below)
  const shipped = JSON.parse(fs.readFileSync(path.join(ROOT, 'agentplane.json'), 'utf8')) as { graphs: Record<string, string>; ui: Record<string, string> };
  const absolute = (entries: Record<string, string>) => Object.fromEntries(Object.entries(entries).map(([id, spec]) => [id, path.join(ROOT, spec)]));
  const graphs: Record<string, unknown> = absolute(shipped.graphs);
  graphs.echo = { path: graphs.echo, description: `start-loads ${randomUUID()}` };
  const configFile = path.join(tempDir(), 'agentplane.json');
  fs.writeFileSync(configFile, JSON.stringify({ ...shipped, graphs, ui: absolute(shipped.ui) }));
  const child = spawn(
    process.execPath,
    [
      '--import',
      path.join(ROOT, 'test/support/recordLoads.mjs'),
      path.join(ROOT, 'bin/agentplane.js'),
      'serve',
      '--memory',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--config',
      configFile,
    ],
    {
      cwd: ROOT,
      // no run-path warm-up: its requests (after the first 200) would load the body validators this test waits to see loaded by its own
      env: {
        ...process.env,
        RECORD_LOADS: loads,
        AGENTPLANE_RUN_WORKER_WARMUP: '0',
        LOG_LEVEL: 'info',
        DATABASE_URL: '',
        AGENTPLANE_API_KEYS: `${key}:6f1d3c1e-8a55-4f51-9a59-3c7b1f0f2a11`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 120_000);
      child.stdout.on('data', () => {
        const listening = logLine(out, 'agentplane listening');
        if (listening) {
          clearTimeout(timer);
          resolve(listening.url);
        }
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}:\n${out}`));
      });
    });
    const ok = await fetch(`${url}/ok`);
    assert.equal(ok.status, 200);
    const loaded = () => fs.readFileSync(loads, 'utf8').split('\n');
    const from = (pkg: string) => loaded().filter((u) => u.includes(`/node_modules/${pkg}/`));
    assert.ok(from('@langchain/langgraph').length > 0, 'the hook records loads (the shipped graphs use LangGraph)');
    assert.deepEqual(from('pg'), [], 'no DATABASE_URL: the PostgreSQL driver is not loaded');
    assert.deepEqual(from('@modelcontextprotocol/sdk'), [], 'no MCP request yet: the SDK is not loaded');
    // required on the first run (run traces: test/domain/agent/tracing/runTracer.e2e.test.ts)
    for (const sdk of ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'])
      assert.deepEqual(from(sdk), [], `no run yet: ${sdk} is not loaded`);
    assert.deepEqual(from('@hono/node-server'), [], 'no http.app in the project: the Hono adapter is not loaded');
    assert.deepEqual(from('jose'), [], 'no agent card signing key: jose (card signatures) is not loaded');
    assert.deepEqual(from('dotenv'), [], 'the project names no dotenv file: dotenv is not loaded');
    assert.deepEqual(from('oauth4webapi'), [], 'no OAuth call yet: the auth service’s OAuth client (oauth4webapi) is not loaded');
    assert.deepEqual(
      loaded().filter((u) => /\/src\/cli\/(scaffold|buildCommand|conformanceSuite)\.(ts|js)$/.test(u)),
      [],
      'serve loads none of what only `init`, `build` and `conformance` use',
    );
    assert.deepEqual(
      loaded().filter((u) => u.includes('/node_modules/fast-json-stringify/lib/validator.js') || u.includes('/node_modules/ajv/dist/ajv.js')),
      [],
      'no reply written yet: the serializers’ validator (Ajv) is not loaded',
    );
    assert.deepEqual(
      loaded().filter((u) => /\/src\/adapters\/(deploy-targets\/(local|container)|images)\//.test(u)),
      [],
      'the simulated deployer (the default): the local and container targets, and the image builder, are not loaded',
    );
    // the control plane's handlers load once the application answers (the listeners' watch waits for them), not while it is
    // made: after the project's graphs, which the agent server loads after the control plane is composed
    const controlPlaneHandlers = () => loaded().filter((u) => /\/src\/handlers\/control-plane\//.test(u));
    const firstGraph = loaded().findIndex((u) => /\/examples\/graphs\//.test(u));
    assert.ok(firstGraph >= 0, 'the shipped graphs are loaded');
    assert.deepEqual(
      loaded()
        .slice(0, firstGraph)
        .filter((u) => /\/src\/handlers\/control-plane\//.test(u)),
      [],
      'the control plane’s handlers are not loaded while the application is made',
    );
    const controlPlaneTables = () =>
      loaded().filter(
        (u) => /\/generated\/control-plane\/(params|body)\.validators\.gen\.js$|reply\.serializers\.gen\.js$/.test(u) && u.includes('/control-plane/'),
      );
    assert.deepEqual(controlPlaneTables(), [], 'no control-plane request yet: its request validators and reply serializers are not loaded');
    const agentServerBodies = () => loaded().filter((u) => u.endsWith('/generated/agent-server/body.validators.gen.js'));
    assert.deepEqual(agentServerBodies(), [], 'no agent-server request with a body yet: its body validators are not loaded');
    // each operation's reply serializers load with its first request: /ok's, not the other operations'
    const agentServerSerializers = () => loaded().filter((u) => /\/generated\/agent-server\/reply\.serializers\/serializer\d+\.gen\.js$/.test(u));
    const atFirst200 = agentServerSerializers().length;
    assert.ok(atFirst200 > 0 && atFirst200 <= 3, `the first requests' serializers only: ${agentServerSerializers().join(', ')}`);
    // each operation's params validators load with its first request the same way: /ok's query, not the table of them all
    const agentServerParams = () => loaded().filter((u) => /\/generated\/agent-server\/params\.validators(\.gen\.js|\/\w+\.gen\.js)$/.test(u));
    assert.ok(agentServerParams().length <= 3, `the first requests' params validators only: ${agentServerParams().join(', ')}`);
    assert.ok(!agentServerParams().some((u) => u.endsWith('/params.validators.gen.js')), 'not the module of them all');
    const getThreadParams = () => agentServerParams().filter((u) => u.endsWith('/getThread_path.gen.js'));
    assert.deepEqual(getThreadParams(), [], 'no GET /threads/{id} yet: its path validator is not loaded');
    const badThreadId = await fetch(`${url}/threads/not-a-uuid`, { headers: { 'x-api-key': key } });
    const badThreadIdReply = (await badThreadId.json()) as { detail?: { loc: string[] }[] };
    assert.equal(badThreadId.status, 422, JSON.stringify(badThreadIdReply));
    assert.deepEqual(badThreadIdReply.detail?.[0].loc, ['path', 'thread_id'], 'refused by the validator its first request loaded');
    assert.equal(getThreadParams().length, 1, 'the first GET /threads/{id} loaded its path validator');
    const openApiDocuments = () => loaded().filter((u) => /\/generated\/(control-plane|agent-server)\/document\.gen\.js$/.test(u));
    assert.deepEqual(openApiDocuments(), [], 'nothing has read a whole OpenAPI document: their modules are not loaded');
    // the console's first read loads them
    const consoleDocument = await fetch(`${url}/docs/console/agent-server.json`);
    assert.equal(consoleDocument.status, 200);
    assert.equal(((await consoleDocument.json()) as { openapi?: string }).openapi, '3.1.0');
    assert.equal(openApiDocuments().length, 2, 'the console loaded both documents');
    // the first one loads them and is checked by them
    const badThread = await fetch(`${url}/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ metadata: 'not an object' }),
    });
    assert.equal(badThread.status, 422, await badThread.text());
    assert.equal(agentServerBodies().length, 1, 'the first request with a body loaded the body validators');
    assert.ok(agentServerSerializers().length > atFirst200, "the first POST /threads loaded its operation's serializers");

    // the first control-plane request loads them and is checked by them: a bad query is refused as the contract says
    const refused = await fetch(`${url}/v2/deployments?limit=nope`, { headers: { 'x-api-key': key } });
    const refusal = (await refused.json()) as { detail?: { loc: string[] }[] };
    assert.equal(refused.status, 422, JSON.stringify(refusal));
    assert.deepEqual(refusal.detail?.[0]?.loc, ['query', 'limit']);
    assert.equal(controlPlaneTables().length, 3, 'the first control-plane request loaded its tables');
    // the first request a handler answers loads the handlers, and is answered by them
    const listed = await fetch(`${url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key } });
    assert.equal(listed.status, 200, await listed.text());
    assert.ok(controlPlaneHandlers().length > 0, 'the control plane’s handlers are loaded');

    const mcp = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const reply = (await mcp.json()) as { result?: { tools: { name: string }[] } };
    assert.equal(mcp.status, 200, JSON.stringify(reply));
    assert.ok(reply.result?.tools.length, 'the assistants are listed as tools');
    assert.ok(from('@modelcontextprotocol/sdk').length > 0, 'the first MCP request loaded the SDK');
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
});

/** The built entry point's `serve` of `configFile` (bin/agentplane.js as a user starts it), each module it loads recorded in `loads`. */
function serveRecorded(configFile: string, cwd: string, env: Record<string, string>) {
  const loads = path.join(tempDir(), 'loads.txt');
  fs.writeFileSync(loads, '');
  const entry = ['--import', path.join(ROOT, 'test/support/recordLoads.mjs'), path.join(ROOT, 'bin/agentplane.js')];
  const child = spawn(process.execPath, [...entry, 'serve', '--memory', '--port', '0', '--host', '127.0.0.1', '--config', configFile], {
    cwd,
    env: { ...process.env, RECORD_LOADS: loads, LOG_LEVEL: 'info', DATABASE_URL: '', AGENTPLANE_RUN_WORKER_WARMUP: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  void exited.then(() => clearTimeout(timer));
  /** The first 200 of /ok, or the exit's code and output. */
  const answered = new Promise<{ url: string } | { code: number | null }>((resolve) => {
    const listened = () => {
      const listening = logLine(out, 'agentplane listening');
      if (!listening) return;
      child.stdout.off('data', listened);
      resolve(fetch(`${listening.url}/ok`).then((ok) => (assert.equal(ok.status, 200), { url: listening.url as string })));
    };
    child.stdout.on('data', listened);
    void exited.then((code) => resolve({ code }));
  });
  const mainThread = (pkg: string) =>
    fs
      .readFileSync(loads, 'utf8')
      .split('\n')
      .filter((u) => !u.startsWith('worker ') && u.includes(`/node_modules/${pkg}/`));
  return { child, answered, exited, output: () => out, mainThread };
}

/** A project of one LangGraph graph in TypeScript, in a folder of its own (its node_modules agentplane's). */
function langGraphProject(graphSource: string): string {
  const project = tempDir();
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'));
  // an ES module package: tsx runs a .ts file of a package without "type": "module" as CommonJS, which serve does not compile
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(path.join(project, 'graph.ts'), graphSource);
  fs.writeFileSync(path.join(project, 'agentplane.json'), JSON.stringify({ graphs: { g: './graph.ts:graph' } }));
  return project;
}

const GRAPH = `import { Annotation, StateGraph } from '@langchain/langgraph';
const State = Annotation.Root({ n: Annotation<number> });
export const graph = new StateGraph(State).addNode('one', (s) => ({ n: (s.n ?? 0) + 1 })).addEdge('__start__', 'one').compile();
`;

test('a second start of an unchanged project answers before its main thread evaluated LangGraph or @langchain/core', async () => {
  const project = langGraphProject(GRAPH);
  const start = async () => {
    const served = serveRecorded(path.join(project, 'agentplane.json'), project, {});
    try {
      const answered = await served.answered;
      assert.ok('url' in answered, served.output());
      return { langgraph: served.mainThread('@langchain/langgraph'), core: served.mainThread('@langchain/core') };
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  };
  const first = await start();
  assert.ok(first.core.length > 0, 'the first start checked the graph on its main thread before answering');
  const second = await start();
  // (LangGraph's small stream module, a few files, the protocol's conversions import; not LangGraph itself)
  assert.deepEqual(
    second.langgraph.filter((u) => !/\/dist\/stream(\.js|\/)/.test(u)),
    [],
    'the main thread has not evaluated LangGraph before its first 200',
  );
  assert.deepEqual(second.core, [], 'nor @langchain/core');
  // (a changed graph is another compiled set, another key: test/shared/graphCheckRecord.test.ts)
});

test('a remembered graph that no longer loads once loaded after the first 200 stops the server with the message and exit code a refused start gives', async () => {
  const project = langGraphProject(`if (!process.env.H86C_GRAPH_READY) throw new Error('H86C_GRAPH_READY is not set');\n${GRAPH}`);
  const configFile = path.join(project, 'agentplane.json');
  const ready = serveRecorded(configFile, project, { H86C_GRAPH_READY: '1' });
  assert.ok('url' in (await ready.answered), ready.output());
  ready.child.kill('SIGTERM');
  await ready.exited;
  // the same project without the variable its graph needs: the start answers from the remembered check, then stops
  const late = serveRecorded(configFile, project, {});
  const answered = await late.answered;
  assert.ok('url' in answered, `the start answered from the remembered check: ${late.output()}`);
  const lateCode = await late.exited;
  assert.equal(lateCode, 1, late.output());
  // the record was forgotten: the next start checks first and is refused, as before
  const refused = serveRecorded(configFile, project, {});
  const refusal = await refused.answered;
  assert.deepEqual(refusal, { code: 1 }, refused.output());
  const message = (out: string) => /graph "g": cannot import [^\n]*H86C_GRAPH_READY is not set/.exec(out)?.[0];
  assert.ok(message(refused.output()), refused.output());
  assert.equal(message(late.output()), message(refused.output()), 'the same message');
});
