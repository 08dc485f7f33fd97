// The main thread's young generation is held at 4 MB semi-spaces while the process starts, and
// grows as V8 grows it once released (bin/youngGeneration.js; the start's figures:
// scripts/bench/findings.md, h86v). The hold changes V8's flags for the whole process, so each
// case runs in a node of its own.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { START_SEMI_SPACE_BYTES, youngGenerationGiven } from '../../bin/youngGeneration.js';

const MODULE = pathToFileURL(path.resolve('bin/youngGeneration.js')).href;

/** A process's script: fills its new space with objects that live a while, turn by turn, and reports the new space's largest size (bytes) before and after the release. */
const script = (hold: boolean) => `
import { holdYoungGeneration, releaseYoungGeneration, newSpaceBytes } from ${JSON.stringify(MODULE)};
${hold ? 'holdYoungGeneration();' : ''}
const ring = new Array(8192);
const grow = async () => {
  let largest = 0;
  for (let turn = 0; turn < 48; turn++) {
    for (let i = 0; i < 4096; i++) ring[(turn * 4096 + i) % 8192] = new Array(64).fill(turn);
    await new Promise((resolve) => setImmediate(resolve));
    largest = Math.max(largest, newSpaceBytes());
  }
  return largest;
};
const held = await grow();
releaseYoungGeneration();
const released = await grow();
console.log(JSON.stringify({ held, released }));`;

async function run(hold: boolean, nodeOptions = ''): Promise<{ held: number; released: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script(hold)], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as { held: number; released: number };
}

describe("the main thread's young generation while the process starts", () => {
  it('does not grow past two of its start semi-spaces (one growth over at most) until released, then grows as V8 grows it', async () => {
    const [unheld, held] = await Promise.all([run(false), run(true)]);
    // what the same allocations make of it left alone: the case would pass without the hold otherwise
    assert.ok(unheld.held > 4 * START_SEMI_SPACE_BYTES, `left alone the new space grew to ${unheld.held} bytes only`);
    assert.ok(held.held <= 4 * START_SEMI_SPACE_BYTES, `held, the new space grew to ${held.held} bytes`);
    assert.ok(held.released > held.held, `released, the new space stayed at ${held.released} bytes`);
  });

  it('leaves a semi-space size or growth factor given to node as it is', async () => {
    assert.equal(youngGenerationGiven(['--max-semi-space-size=32']), true);
    assert.equal(youngGenerationGiven(['--import x.mjs --semi_space_growth_factor=4']), true);
    assert.equal(youngGenerationGiven(['--max-old-space-size=4096', '']), false);
    const given = await run(true, '--max-semi-space-size=64');
    assert.ok(given.held > 4 * START_SEMI_SPACE_BYTES, `with a size given to node the new space was held at ${given.held} bytes`);
  });
});
