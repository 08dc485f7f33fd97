// A V8 flag the server tunes is set once for the process, and never over one the user gave node.
// Error.stackTraceLimit in a new context is read from V8's --stack-trace-limit, so it shows
// whether the flag was set; each case runs in a node of its own, which is what a user starts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { nodeWasGiven } from '../../../src/runtime/v8/flagUnlessGiven.ts';

const helper = new URL('../../../src/runtime/v8/flagUnlessGiven.ts', import.meta.url).href;

/** Error.stackTraceLimit of a new context after the helper was asked for 7, then for 9, in a node started with `nodeArgs`. */
function limitAfterTwoSets(nodeArgs: string[], nodeOptions = ''): number {
  const script = `
    const { setV8FlagUnlessGiven } = await import(${JSON.stringify(helper)});
    const vm = await import('node:vm');
    setV8FlagUnlessGiven('stack-trace-limit', 7, /--stack[-_]trace[-_]limit/);
    setV8FlagUnlessGiven('stack-trace-limit', 9, /--stack[-_]trace[-_]limit/);
    console.log(vm.runInNewContext('Error.stackTraceLimit'));`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', ...nodeArgs, '--input-type=module', '-e', script], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
  });
  return Number(output.trim());
}

describe('a V8 flag set unless node was given it', () => {
  it('is set for the process, and only the first time it is asked for', () => {
    assert.equal(limitAfterTwoSets([]), 7);
  });

  it('is left as the user gave it on the command line', () => {
    assert.equal(limitAfterTwoSets(['--stack-trace-limit=3']), 3);
  });

  it('is left as the user gave it in NODE_OPTIONS, with underscores', () => {
    assert.equal(limitAfterTwoSets([], '--stack_trace_limit=4'), 4);
  });

  it('reads every option, NODE_OPTIONS as one string among them', () => {
    assert.equal(nodeWasGiven(/--a[-_]b/, ['--x', '--y --a_b=1']), true);
    assert.equal(nodeWasGiven(/--a[-_]b/, ['--x', '']), false);
  });
});
