// `agentplane-server conformance --url URL`: the suite against a server it did not start
// (agentplane real or mock, the upstream servers, anything claiming the documents). The
// command runs this file under node's test runner and passes the target in the environment:
// CONFORMANCE_URL, CONFORMANCE_API_KEY, CONFORMANCE_MODE (real|mock: whether answers must
// agree with each other), CONFORMANCE_DOCUMENTS (comma-separated), FUZZ_RUNS, FUZZ_SEED.
import { describe } from 'node:test';
import { defineSuiteAgainst } from './lib/suite.ts';

const url = (process.env.CONFORMANCE_URL ?? '').replace(/\/+$/, '');
if (!url) throw new Error('CONFORMANCE_URL is not set (run it as: agentplane-server conformance --url URL)');
const mode = process.env.CONFORMANCE_MODE === 'mock' ? 'mock' : 'real';
const documents = (process.env.CONFORMANCE_DOCUMENTS ?? 'control-plane,agent-server,a2a').split(',').map((d) => d.trim()) as (
  'control-plane' | 'agent-server' | 'a2a'
)[];

describe(`conformance of ${url} (${mode}; ${documents.join(', ')})`, () => {
  defineSuiteAgainst({
    mode,
    documents,
    requireCoverage: false,
    target: async () => ({ url, key: process.env.CONFORMANCE_API_KEY ?? '', mode }),
  });
});
