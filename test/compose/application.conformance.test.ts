// The conformance suite against real mode: a stateful server with its run queue and deployer.
import { defineConformanceSuite } from '../conformance/local.ts';

defineConformanceSuite('real');
