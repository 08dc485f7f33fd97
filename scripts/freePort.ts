/** A TCP port on 127.0.0.1 that was free a moment ago (for child servers in tests and the bench): the deployers' own. */
export { freePort } from '../src/adapters/deploy-targets/shared/probes.ts';
