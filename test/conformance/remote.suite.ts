// `agentplane-server conformance --url URL`: the suite against a server it did not start
// (agentplane real or mock, the upstream servers, anything claiming the documents). The
// command runs this file under node's test runner and passes the target in the environment:
// CONFORMANCE_URL, CONFORMANCE_API_KEY, CONFORMANCE_MODE (real|mock: whether answers must
// agree with each other), CONFORMANCE_DOCUMENTS (comma-separated), FUZZ_RUNS, FUZZ_SEED,
// CONFORMANCE_WAIT_MS (how long a server still starting is waited for, default 60 s).
// It leaves no trace (created.ts): what it made is deleted at the end, passed, failed or
// interrupted (SIGINT, SIGTERM).
import fs from 'node:fs';
import { after, describe } from 'node:test';
import { defineSuiteAgainst } from './lib/suite.ts';
import { CreatedResources } from './lib/created.ts';
import type { Target } from './lib/http.ts';

const url = (process.env.CONFORMANCE_URL ?? '').replace(/\/+$/, '');
if (!url) throw new Error('CONFORMANCE_URL is not set (run it as: agentplane-server conformance --url URL)');
const mode = process.env.CONFORMANCE_MODE === 'mock' ? 'mock' : 'real';
const documents = (process.env.CONFORMANCE_DOCUMENTS ?? 'control-plane,agent-server,a2a').split(',').map((d) => d.trim()) as (
  'control-plane' | 'agent-server' | 'a2a'
)[];
const WAIT_MS = Number(process.env.CONFORMANCE_WAIT_MS ?? 60_000);

const created = new CreatedResources();
const traffic = { stopped: false, underWay: 0 };
const target: Target = { url, key: process.env.CONFORMANCE_API_KEY ?? '', mode, traffic, onAnswer: (t, req, res) => created.note(t, req, res) };

/** Waits until the server answers its health check (a server still starting loads its graphs first). */
async function serving(): Promise<void> {
  const until = Date.now() + WAIT_MS;
  let last = 'no answer';
  while (Date.now() < until) {
    try {
      const res = await fetch(`${url}/ok`, { signal: AbortSignal.timeout(Math.max(1000, until - Date.now())) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url}/ok did not answer 200 within ${WAIT_MS} ms (${last}): is the server up?`);
}

/** Until the requests under way are answered (at most the request timeout and a little). */
async function settled(): Promise<void> {
  const until = Date.now() + Number(process.env.CONFORMANCE_TIMEOUT_MS ?? 15_000) + 1000;
  while (traffic.underWay > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function cleanUp(): Promise<void> {
  // the deletions themselves go out whatever stopped the rest
  const left = await created.deleteAll({ ...target, traffic: undefined });
  if (left.length) console.error(`conformance: could not delete what the suite made:\n  ${left.join('\n  ')}`);
}

// interrupted: delete what was made, then end as the signal would (a second Ctrl-C, or the
// runner passing the first one on, does not cut the deleting short). The command signals this
// process itself (its pid written to CONFORMANCE_PID_FILE), not node's test runner, which
// would end before the deleting is done and the command with it.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    // nothing new is sent; what is under way may still create something: its answer is noted first
    traffic.stopped = true;
    console.error(`conformance: interrupted; once the ${traffic.underWay} request(s) under way are answered, what the suite made is deleted`);
    void settled()
      .then(() => cleanUp())
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}
// the pid only once the handlers are set: a signal sent on seeing it would otherwise end the
// process uncleaned; written whole under another name and then renamed, so the file is never
// seen without the pid in it
if (process.env.CONFORMANCE_PID_FILE) {
  const writing = `${process.env.CONFORMANCE_PID_FILE}.${process.pid}`;
  fs.writeFileSync(writing, String(process.pid));
  fs.renameSync(writing, process.env.CONFORMANCE_PID_FILE);
}

describe(`conformance of ${url} (${mode}; ${documents.join(', ')})`, () => {
  after(cleanUp);
  defineSuiteAgainst({
    mode,
    documents,
    requireCoverage: false,
    target: async () => {
      await serving();
      await created.spareExisting(target);
      return target;
    },
  });
});
