// A hostile tenant's flood leaves another tenant its service (issue 83, "done when"): tenant A
// floods the server on loopback — 32 connections creating threads, stateless runs of a 1-s graph,
// deployments and store items back to back, and 64 key-less WebSocket upgrades opened again as
// soon as each is let go — while tenant B, from a process of its own, reads one of its threads
// every 15 ms and runs a run. B's read p99 stays near its quiet figure (1.5x in the bench, 3x
// here: below), and its run within one of A's runs' length of its quiet time. The rig is test/support/tenantFlood.ts
// (scripts/bench/tenantFlood.ts measures the same, with more rounds and every figure); what keeps
// B's service is tenantTurns.ts (A's requests handled a few at once, let in one a turn of the
// loop, tenants in rotation), tenantRates.ts, refusalPace.ts and the run slots' fair share.
//
// The project measures speed with the bench, not with timed tests. The bound (B's p99
// within 1.5x) is the bench's: `npx tsx scripts/bench/tenantFlood.ts` exits 1 when it is missed.
// On a quiet 2-core machine both main and the tree before it measure a median ratio of 1.2-2.2
// there (CI on 2026-11-30: 2.2, 1.7, 2.0 in three attempts; the bench at load ~0.5: 1.2, 1.7 on
// main, 1.7 on the tree before), so asserting 1.5x here failed CI about half the time, which
// said nothing about a change. This test guards against a regression of the mechanism instead:
// B's p99 within REGRESSION_BOUND (3x) of its quiet figure, and its run within one of A's runs'
// length, which a loss of the tenants' turns or of the run slots' fair share breaks by far (B
// behind A's backlog). It is built not to be flaky:
// - quiet and flooded spells alternate (A paused and resumed, its runs let end in between), so
//   each round's two spells see the same machine, and each round's p99s are compared with each
//   other; the bound holds for the median round of three, so one round that the machine's other
//   work (a CI runner's other tests) spoiled does not decide;
// - that other work only ever adds latency, to either spell, while a flood that does hurt B does
//   so in every round: the bound must hold in one of up to three attempts, and the figures of
//   every attempt are in the failure's message (with the server's event-loop CPU time while B
//   waited, which the machine's other work does not inflate);
// - the test process asks for a higher priority than the machine's other work where it may
//   (root, or CAP_SYS_NICE) before the server starts, so its threads and B's process (which
//   inherit it) are not the ones a busy machine takes the CPU from; the flooder runs at the lowest
//   (niceness 19 and SCHED_IDLE where chrt is: a core it holds is given up as soon as the server or
//   B wakes, so its own CPU is not in B's latency, test/support/floodClient.ts);
// - B is measured once A's burst (AGENTPLANE_MAX_REQUEST_BURST, let in at once by design) is
//   sent, while A keeps flooding at what its rate and the server let it;
// - bounded: 3 rounds of 2 s spells an attempt (~1 min with A's runs let end between rounds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { RUN_MS, floodRig, type FloodSpells } from '../../../support/tenantFlood.ts';

const ATTEMPTS = 3;
const ROUNDS = 3;
const WINDOW_MS = 2_000;
/** B's p99 under the flood over its quiet p99 that fails the test (the 1.5x is the bench's). */
const REGRESSION_BOUND = 3;
const fixed = (ms: number) => Math.round(ms * 10) / 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** The median round's p99 ratio and run excess, and each round's figures in words. */
function judged(spells: FloodSpells): { ratio: number; runExcess: number; said: string } {
  const ratio = median(spells.rounds.map((r) => r.floodP99 / r.idleP99));
  const runExcess = median(spells.rounds.map((r) => r.floodRun - r.idleRun));
  const said = spells.rounds
    .map(
      (r) =>
        `p99 ${fixed(r.idleP99)} -> ${fixed(r.floodP99)} ms (loop ${fixed(r.idleLoopP99)} -> ${fixed(r.floodLoopP99)} ms), ` +
        `run ${fixed(r.idleRun)} -> ${fixed(r.floodRun)} ms`,
    )
    .join('; ');
  return { ratio, runExcess, said };
}

test("a tenant's flood keeps another tenant's p99 within 3x of its quiet figure and its runs within one run's length", { timeout: 400_000 }, async (t) => {
  try {
    os.setPriority(-10);
  } catch {
    // not allowed here: the alternation, the medians and the attempts have to do
  }
  const rig = await floodRig();
  const seen: string[] = [];
  try {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const { ratio, runExcess, said } = judged(await rig.spells(ROUNDS, WINDOW_MS));
      seen.push(`attempt ${attempt} (load ${fixed(os.loadavg()[0]!)}): median ratio ${fixed(ratio)}, run +${fixed(runExcess)} ms; ${said}`);
      if (ratio <= REGRESSION_BOUND && runExcess <= RUN_MS) return t.diagnostic(seen.join('\n'));
    }
    assert.fail(
      `B's service under A's flood missed its bound (p99 within ${REGRESSION_BOUND}x, run within ${RUN_MS} ms more) in every attempt:\n${seen.join('\n')}`,
    );
  } finally {
    const report = await rig.close();
    // the flood did flood: A was answered, admitted and refused
    assert.ok(
      Object.keys(report.statuses).some((s) => /^2/.test(s)),
      JSON.stringify(report.statuses),
    );
    assert.ok(report.keylessRefused > 0);
  }
});
