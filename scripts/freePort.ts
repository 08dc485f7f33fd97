/** A TCP port on 127.0.0.1 for a child server that listens later (tests and the bench): the deployers' own, outside the ephemeral range. */
export { freePort } from '../src/adapters/deploy-targets/shared/freePort.ts';
