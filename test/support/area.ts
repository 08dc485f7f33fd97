// One area alone, answering in process: the control plane, the agent server, or A2A (with the
// agent server it is built on), composed on the ports a test server's configuration picks
// (test/support/server.ts: the same keys, store, options and checks of every reply). The
// other areas' routes answer 404, as unknown routes do. A test of one area's handlers builds
// that area only: no graphs loaded for the control plane, no deployer for the agent server.
import type { AreaName } from '../../src/compose/area.ts';
import { answerInProcess, type InProcessApp, type TestServerOptions } from './server.ts';

export type { InProcessApp } from './server.ts';

export function areaApp(area: AreaName, options: TestServerOptions = {}): Promise<InProcessApp> {
  return answerInProcess(options, [area]);
}
