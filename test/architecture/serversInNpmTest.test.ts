// Few files in `npm test` open a port of agentplane (issue 66: at most 15; CEILING below). A test of a rule
// answers through the in-process entry (test/support/server.ts inProcessApp, the SDKs given its
// fetch); a server on a socket is kept for what the socket is: WebSocket upgrades, a process
// started, stopped or killed, replicas, OAuth redirects back to the server, the port itself.
// SERVING lists the files that may start one, each with why; a new one must say why here, and
// one that stops starting a server must leave the list, so the count cannot creep back.
//
// A file starts a server when it calls a helper that opens a port (test/support's
// startTestServer, dashboardFixture, spawnServer, startDev), calls
// startServer/startHttpServer without `listen: false`, or spawns the CLI's serve or dev.
// Ports that are not agentplane's (a fake OAuth server, a webhook receiver, an SSE writer on a
// bare node server) are not counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, callsOf, npmTestFiles, withoutComments, SPAWNS_CLI_SERVER } from './npmTestFiles.ts';
/** How many may: the count reached (36 before the move to the in-process entry; issue 66's goal is at most 15). Lower it as files move. */
const CEILING = 12;

/** The npm test files that may start a server, and why they need its socket. */
const SERVING: Record<string, string> = {
  'test/adapters/postgres/pgMigrations.test.ts': 'the CLI started on a database too new for it exits 1 before listening, as an operator sees it',
  'test/handlers/a2a/bindings.test.ts': "the A2A gRPC binding, driven by the SDK's gRPC client, is served on a port of its own",
  'test/handlers/a2a/bindings.input.test.ts': 'bad input over the A2A gRPC binding (a port of its own) beside HTTP+JSON',
  'test/handlers/agent-server/protocol.replicas.test.ts': 'two replicas on one PostgreSQL, each a server',
  'test/handlers/agent-server/protocol.threadStream.test.ts': "the SDK's threads.stream() over the protocol WebSocket (an upgrade) as well as SSE",
  'test/runtime/project/customRoutes.test.ts': "http.app middleware passes API calls on to the server's port, and a webhook that is a path reaches it there",
  'test/runtime/project/devDataDir.test.ts': '`agentplane dev` started in a project folder: where its data goes',
  'test/runtime/project/project.test.ts': "`agentplane serve` started in a project's folder, its env file applied to the process",
  'test/runtime/server.listenFirst.test.ts': 'the port opens before the graphs load: what it answers meanwhile',
  'test/runtime/server.shutdown.test.ts': 'a stop while clients hold streams and WebSockets: going-away frames, kept-alive connections',
  'test/runtime/transports/websocket/socketDoor.test.ts': 'the protocol WebSocket: upgrades refused or accepted, frames, caps, idle sockets',
  'test/sdk/auth.graph.test.ts': "the connected graph's auth calls reach the server through its port (loopback)",
};

/** The helpers of test/support that open a port of agentplane. */
const HELPERS = /\b(startTestServer|dashboardFixture|spawnServer|startDev)\(/;

/** Whether a test file's source starts a server on a port. */
export function startsServer(source: string): boolean {
  const code = withoutComments(source);
  if (HELPERS.test(code)) return true;
  if (['startServer', 'startHttpServer'].some((name) => callsOf(code, name).some((args) => !/\blisten: false\b/.test(args)))) return true;
  // the CLI started as a user starts it
  return SPAWNS_CLI_SERVER.test(code);
}

test('the rule reads what starts a server', () => {
  assert.ok(startsServer('const s = await startTestServer({ mock: true });'));
  assert.ok(startsServer("startServer(loadConfig(['--port', '0']), createApplication, log)"));
  assert.ok(startsServer("spawn(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'serve', '--memory'])"));
  assert.ok(startsServer("spawn(process.execPath, [...cliEntry(), 'serve', '--memory'])"));
  assert.ok(!startsServer("startServer(loadConfig(['--port', '0']), createApplication, log, { listen: false })"));
  assert.ok(!startsServer('const app = await inProcessApp({ mock: true });'));
  assert.ok(!startsServer("execFileSync(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'init', dir])"));
  assert.ok(!startsServer('// before, it called startTestServer() here'));
});

test(`at most ${CEILING} files in npm test start a server, each listed with why`, () => {
  // the architecture tests read sources (this one names the helpers), they start nothing
  const files = npmTestFiles().filter((f) => !f.startsWith('test/architecture/'));
  assert.ok(files.length > 100, `only ${files.length} test files found: the walk is wrong`);
  const serving = files.filter((f) => startsServer(fs.readFileSync(path.join(ROOT, f), 'utf8'))).sort();
  console.log(`${serving.length} of ${files.length} files in npm test start a server:\n  ${serving.join('\n  ')}`);
  const unlisted = serving.filter((f) => !(f in SERVING));
  assert.deepEqual(unlisted, [], `these start a server: answer through inProcessApp (test/support/server.ts), or list them in SERVING with why`);
  const stale = Object.keys(SERVING).filter((f) => !serving.includes(f));
  assert.deepEqual(stale, [], 'these no longer start a server (or are gone): take them off SERVING');
  assert.ok(Object.keys(SERVING).length <= CEILING, `${Object.keys(SERVING).length} files may start a server, over the ceiling of ${CEILING}`);
});
