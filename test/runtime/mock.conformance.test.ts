// The conformance suite against mock mode: every answer comes from the spec's examples.
import { defineConformanceSuite } from '../conformance/local.ts';

defineConformanceSuite('mock');
