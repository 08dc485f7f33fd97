// The young generation's growth factor (runtime/idle/youngGenerationGrowth.ts): set for the
// process unless node was given one. In a node of its own: after a shrink, short-lived garbage
// with a few survivors grows the new space back to its maximum in one step at 16, not at 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { growthFactorGiven } from '../../../src/runtime/idle/youngGenerationGrowth.ts';

test('a growth factor given to node, on its command line or in NODE_OPTIONS, is the user’s', () => {
  assert.equal(growthFactorGiven(['--semi-space-growth-factor=4']), true);
  assert.equal(growthFactorGiven(['--max-old-space-size=512 --semi_space_growth_factor=3']), true);
  assert.equal(growthFactorGiven(['--max-semi-space-size=16', '']), false);
  assert.equal(growthFactorGiven([]), false);
});

/** The new space's largest size (MB) in a node that shrinks it (a forced full collection while idle), then allocates garbage of which a little survives, at `factor`. */
function grownTo(factor: number): number {
  const script = `
    const v8 = require('node:v8');
    v8.setFlagsFromString('--semi-space-growth-factor=${factor}');
    const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    setTimeout(() => {
      globalThis.gc();
      let most = 0;
      const kept = [];
      for (let i = 0; i < 300000; i += 1) {
        const garbage = { i, text: 'x'.repeat(64) + i };
        if (i % 50 === 0) kept.push(garbage);
        if (i % 1000 === 0) most = Math.max(most, newSpace());
      }
      process.stdout.write(String(most / 1048576));
    }, 1500);`;
  return Number(execFileSync(process.execPath, ['--expose-gc', '--max-semi-space-size=16', '-e', script], { encoding: 'utf8' }));
}

test('after a shrink the new space grows back to its maximum in one step at 16, in several at 2', () => {
  const [at2, at16] = [grownTo(2), grownTo(16)];
  assert.ok(at16 > at2, `factor 16: ${at16} MB, factor 2: ${at2} MB`);
});
