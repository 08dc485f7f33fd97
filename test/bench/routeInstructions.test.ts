// routeInstructions.ts reads callgrind's per-thread dumps: every thread's instructions, the main
// thread's apart (the one a request's answer waits for), and its cache misses when simulated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dumpTotals } from '../../scripts/bench/routeInstructions.ts';

const dump = (events: string, totals: string) => `version: 1\ncreator: callgrind-3.19.0\nevents: ${events}\n\nfn=x\n0 1\n\ntotals: ${totals}\n`;

test("the main thread's instructions are its -01 file's; all threads' are every file's", () => {
  const counted = dumpTotals([
    { name: '/w/current.callgrind.3-01', text: dump('Ir', '1000') },
    { name: '/w/current.callgrind.3-02', text: dump('Ir', '30') },
    { name: '/w/current.callgrind.3-11', text: dump('Ir', '5') },
  ]);
  assert.deepEqual(counted, { all: 1035, main: 1000, mainL1Misses: 0, mainLLMisses: 0 });
});

test("with the caches simulated, the main thread's misses are summed by level, each event found by its name", () => {
  const counted = dumpTotals([
    { name: 'c.1-01', text: dump('Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw', '900 10 1 400 20 2 300 30 3') },
    { name: 'c.1-02', text: dump('Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw', '100 7 7 7 7 7 7 7 7') },
  ]);
  assert.deepEqual(counted, { all: 1000, main: 900, mainL1Misses: 60, mainLLMisses: 6 });
});

test('a file with no totals (a thread that ended before the dump) counts nothing', () => {
  assert.deepEqual(dumpTotals([{ name: 'c.1-04', text: 'version: 1\nevents: Ir\n' }]), { all: 0, main: 0, mainL1Misses: 0, mainLLMisses: 0 });
});
