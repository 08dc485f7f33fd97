// V8's interrupt budget for the server's process (runtime/v8/earlyOptimisation.ts): an eighth of
// node's default unless node was given one. In a node of its own: a function made hot by the
// same few calls is optimised at the server's budget and not yet at node's default, and the run
// workers' isolates share the setting (a worker started after it is set).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { interruptBudgetGiven } from '../../../src/runtime/v8/earlyOptimisation.ts';

test('an interrupt budget given to node, on its command line or in NODE_OPTIONS, is the user’s', () => {
  assert.equal(interruptBudgetGiven(['--interrupt-budget=67584']), true);
  assert.equal(interruptBudgetGiven(['--max-old-space-size=512 --interrupt_budget=1000']), true);
  // V8's other budgets are other flags
  assert.equal(interruptBudgetGiven(['--interrupt-budget-for-feedback-allocation=940', '']), false);
  assert.equal(interruptBudgetGiven(['--interrupt-budget-factor-for-feedback-allocation=8']), false);
  assert.equal(interruptBudgetGiven([]), false);
});

/**
 * Whether a function called `calls` times is optimised by then, in the process (`main`) and in a
 * worker started after the module set the budget; `optimise` says whether the module runs first.
 */
function optimisedAfter(calls: number, optimise: boolean, nodeArgs: string[] = []): { main: boolean; worker: boolean } {
  const module = new URL('../../../src/runtime/v8/earlyOptimisation.ts', import.meta.url).href;
  const script = `
    const { Worker } = require('node:worker_threads');
    const probe = (calls) => {
      const hot = (a) => { let s = 0; for (let i = 0; i < 40; i += 1) s += (a * i) % 7; return s; };
      for (let i = 0; i < calls; i += 1) hot(i);
      // %GetOptimizationStatus: bit 4 (16) is "optimised by TurboFan"
      return (%GetOptimizationStatus(hot) & 16) !== 0;
    };
    (async () => {
      if (${optimise}) (await import(${JSON.stringify(module)})).optimiseHotCodeSooner();
      const main = probe(${calls});
      const worker = await new Promise((resolve, reject) => {
        const w = new Worker('const { parentPort } = require("node:worker_threads"); parentPort.postMessage((' + probe.toString() + ')(${calls}));', { eval: true });
        w.once('message', resolve);
        w.once('error', reject);
      });
      await new Promise((r) => setTimeout(r, 200));
      process.stdout.write(JSON.stringify({ main, worker }));
    })();`;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '--import', 'tsx', ...nodeArgs, '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as { main: boolean; worker: boolean };
}

test('a function the same few calls make hot is optimised at the server’s budget, in the process and in a worker, and not at node’s default', () => {
  const calls = 25; // optimised from ~10 calls at the server’s budget, ~55 at node’s default
  assert.deepEqual(optimisedAfter(calls, false), { main: false, worker: false }, 'node’s default budget optimised it already: the probe proves nothing');
  assert.deepEqual(optimisedAfter(calls, true), { main: true, worker: true });
  // a budget the user gave node stays
  assert.deepEqual(optimisedAfter(calls, true, ['--interrupt-budget=67584']), { main: false, worker: false });
});
