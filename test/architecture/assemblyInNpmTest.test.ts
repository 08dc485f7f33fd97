// An area is the unit of assembly and of testing (issue 88): a test of one area's handlers or
// rules builds that area alone (test/support/area.ts areaApp, or src/compose's composers over
// memoryPorts), and the whole application (config → store → every area → graphs) is kept for
// what needs it — the wire and its ports, restarts, replicas, the SDK's way back to the server,
// mock mode, and the few tests whose subject spans the areas. WHOLE_APPLICATION lists the
// `npm test` files that assemble the whole application, each with why; a new one must say why
// here, and one that stops must leave the list, so the count cannot creep back. The files that
// assemble one area may only grow in number (FLOOR).
//
// A file assembles the whole application when it calls a helper that makes it
// (test/support's inProcessApp, startTestServer, dashboardFixture, spawnServer, startDev),
// names createApplication, calls startServer without naming its areas, or spawns the CLI's
// serve or dev. It assembles one area when it does none of that and calls areaApp, a helper
// made on it (twoTenants, serveWithClient), a composer of src/compose, or createApi.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, callsOf, npmTestFiles, withoutComments, SPAWNS_CLI_SERVER } from './npmTestFiles.ts';

/** At most this many files assemble the whole application (issue 88: about 25; 106 before areas). */
const CEILING = 25;
/** At least this many assemble one area alone: the count reached (issue 88: at least 50). */
const FLOOR = 86;

/** The npm test files that assemble the whole application, and why they need all of it. */
const WHOLE_APPLICATION: Record<string, string> = {
  'test/adapters/postgres/pgMigrations.test.ts': 'the CLI started on a database too new for it, as an operator starts it',
  'test/cli/conformanceSuite.leavesNoTrace.test.ts': 'the conformance command runs against the whole served contract',
  'test/compose/application.startup.test.ts': 'what a start of the whole application loads and answers (its subject is the assembly)',
  'test/domain/agent/checkpoints/checkpointer.langGraphLoads.test.ts': "the modules a fresh process loads when the test helpers' default application starts",
  'test/handlers/a2a/bindings.input.test.ts': 'bad input over the A2A gRPC binding, on a port of its own beside HTTP+JSON',
  'test/handlers/a2a/bindings.test.ts': "the A2A gRPC binding, driven by the SDK's gRPC client on a port of its own",
  'test/handlers/agent-server/metrics.webhooks.test.ts': "GET /metrics renders every area's gauges: the deployments' beside the runs'",
  'test/handlers/agent-server/protocol.replicas.test.ts': 'two replicas on one PostgreSQL, each a server',
  'test/handlers/agent-server/protocol.threadStream.test.ts': 'a WebSocket upgrade on a port, beside SSE',
  'test/handlers/control-plane/agentAuth.default.test.ts': "a graph of the agent server reaches the control plane's auth service in process",
  'test/runtime/api.lazyDocuments.test.ts': 'a start of every area builds neither OpenAPI document',
  'test/runtime/project/customRoutes.test.ts': "http.app middleware passes API calls on to the server's port",
  'test/runtime/project/devDataDir.test.ts': '`agentplane dev` started in a project folder',
  'test/runtime/transports/inProcess.test.ts': "the in-process entry itself, over both documents' routes",
  'test/runtime/mock.preferences.test.ts': 'mock mode answers the whole contract from its examples',
  'test/runtime/mock.test.ts': 'mock mode answers the whole contract from its examples',
  'test/runtime/transports/http/pipeline.hotpath.test.ts': "the pipeline's hot path over both documents' handlers",
  'test/runtime/transports/http/pipeline.http.test.ts': "the pipeline's refusals over both documents (in mock mode)",
  'test/runtime/project/project.test.ts': "`agentplane serve` started in a project's folder",
  'test/runtime/transports/http/replySerializers.test.ts': "the reply serializers of both documents, on the application's own handlers",
  'test/runtime/server.listenFirst.test.ts': 'the port opens before the graphs load: what it answers meanwhile',
  'test/runtime/server.shutdown.test.ts': 'a stop while clients hold streams and WebSockets',
  'test/runtime/transports/websocket/socketDoor.test.ts': 'the protocol WebSocket: upgrades, frames, caps, idle sockets',
  'test/runtime/transports/http/storableText.test.ts': 'text the store cannot keep is refused by every area that stores it',
  'test/sdk/auth.graph.test.ts': "the connected graph's auth calls reach the server through its port",
};

const WHOLE_HELPERS = /\b(inProcessApp|startTestServer|dashboardFixture|spawnServer|startDev)\(|\bcreateApplication\b/;
const AREA_HELPERS = /\b(areaApp|twoTenants|serveWithClient|composeControlPlane|composeAgentServer|composeA2A|createApi)\(/;

/** Whether a test file's source assembles the whole application. */
export function assemblesWhole(source: string): boolean {
  const code = withoutComments(source);
  if (WHOLE_HELPERS.test(code)) return true;
  if (callsOf(code, 'startServer').some((args) => !/\bareas\b/.test(args))) return true;
  return SPAWNS_CLI_SERVER.test(code);
}

/** Whether it assembles areas alone, and never the whole application. */
export function assemblesOneArea(source: string): boolean {
  return !assemblesWhole(source) && AREA_HELPERS.test(withoutComments(source));
}

test('the rule reads what assembles the whole application and what one area', () => {
  assert.ok(assemblesWhole('const app = await inProcessApp({ mock: true });'));
  assert.ok(assemblesWhole('startServer(config, undefined, log, { listen: false })'));
  assert.ok(assemblesWhole('app: async (deps) => createApplication(deps)'));
  assert.ok(assemblesWhole("spawn(process.execPath, [...cliEntry(), 'serve', '--memory'])"));
  assert.ok(!assemblesWhole("startServer(config, undefined, log, { listen: false, areas: ['a2a'] })"));
  assert.ok(assemblesOneArea("const app = await areaApp('control-plane');"));
  assert.ok(assemblesOneArea("tenants = await twoTenants('agent-server', {});"));
  assert.ok(assemblesOneArea('const api = await createApi(await composeControlPlane(ports), ports, auth);'));
  assert.ok(!assemblesOneArea("const a = await areaApp('a2a'); const b = await inProcessApp();"));
  assert.ok(!assemblesOneArea('// before, it called areaApp() here'));
});

test(`at most ${CEILING} files in npm test assemble the whole application, each listed with why; at least ${FLOOR} one area alone`, () => {
  // the architecture tests read sources (this one names the helpers), they assemble nothing
  const files = npmTestFiles().filter((f) => !f.startsWith('test/architecture/'));
  assert.ok(files.length > 100, `only ${files.length} test files found: the walk is wrong`);
  const sources = new Map(files.map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8')]));
  const whole = files.filter((f) => assemblesWhole(sources.get(f)!)).sort();
  const oneArea = files.filter((f) => assemblesOneArea(sources.get(f)!));
  console.log(
    `${whole.length} of ${files.length} files in npm test assemble the whole application, ${oneArea.length} one area alone:\n  ${whole.join('\n  ')}`,
  );
  const unlisted = whole.filter((f) => !(f in WHOLE_APPLICATION));
  assert.deepEqual(unlisted, [], 'these assemble the whole application: build the area they test (test/support/area.ts), or list them with why');
  const stale = Object.keys(WHOLE_APPLICATION).filter((f) => !whole.includes(f));
  assert.deepEqual(stale, [], 'these no longer assemble the whole application (or are gone): take them off WHOLE_APPLICATION');
  assert.ok(whole.length <= CEILING, `${whole.length} files assemble the whole application, over the ceiling of ${CEILING}`);
  assert.ok(oneArea.length >= FLOOR, `${oneArea.length} files assemble one area alone, under the floor of ${FLOOR}`);
});
