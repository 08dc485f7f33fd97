// A run worker gives way to the request loop (issue 83): yieldToRequestLoop lowers the niceness of
// the thread that calls it, and of that thread alone, as the kernel sees it (/proc's stat of the
// thread: a niceness that os.getPriority read back but the kernel applied to the whole process
// would lower the request loop too).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { RUN_WORKER_NICENESS, yieldToRequestLoop } from '../../../src/adapters/run-workers/schedulingPriority.ts';

const MODULE = new URL('../../../src/adapters/run-workers/schedulingPriority.ts', import.meta.url).href;

/** A thread's niceness as the kernel holds it: field 19 of /proc/<pid>/task/<tid>/stat. */
const niceOf = (taskPath: string) => {
  const stat = fs.readFileSync(`/proc/${taskPath}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

/** A thread that calls yieldToRequestLoop and answers what it returned and its own /proc path (PID/task/TID). */
const LOWERS_ITSELF = `
const { parentPort } = require('node:worker_threads');
import('tsx/esm/api')
  .then(({ tsImport }) => tsImport(${JSON.stringify(MODULE)}, ${JSON.stringify(MODULE)}))
  .then(({ yieldToRequestLoop }) => {
    const lowered = yieldToRequestLoop();
    parentPort.postMessage({ lowered, self: require('node:fs').readlinkSync('/proc/thread-self') });
    // held until ended, so its stat can be read
    setInterval(() => {}, 1000);
  });`;

describe('a run worker’s scheduling priority', () => {
  it('is lowered for the worker’s thread alone, the request loop’s kept', { skip: process.platform !== 'linux' }, async () => {
    const mainNice = niceOf(`${process.pid}/task/${process.pid}`);
    const thread = new Worker(LOWERS_ITSELF, { eval: true });
    try {
      const [{ lowered, self }] = (await once(thread, 'message')) as [{ lowered: boolean; self: string }];
      assert.equal(lowered, true);
      assert.notEqual(self, `${process.pid}/task/${process.pid}`);
      assert.equal(niceOf(self), Math.min(19, mainNice + RUN_WORKER_NICENESS));
      if (mainNice < 19) assert.ok(niceOf(self) > mainNice, 'the worker is below the request loop');
      assert.equal(niceOf(`${process.pid}/task/${process.pid}`), mainNice);
    } finally {
      await thread.terminate();
    }
  });

  it('is left alone where a priority is not per thread', () => {
    assert.equal(yieldToRequestLoop('darwin'), false);
  });
});
