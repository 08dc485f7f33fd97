// A run's end is written onto its thread in place (runEndRecord.ts, RunStore.settleThread):
// what was written to the thread between the end's read and its write stays, and the thread's
// status is decided by the runs pending on it when the write applies. Each end is held between
// its read (RunClaims.endState) and its write (RunClaims.recordEnd) by a wrapper of the run
// claims, while a patch of the thread's metadata, or a run created on it, lands in between: on
// the embedded store and on PostgreSQL. Before, the end wrote back the whole thread it had
// read: the patch was lost, and the thread was left idle with a run pending on it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { areaApp, type InProcessApp } from '../../../support/area.ts';
import { BACKENDS } from '../../../support/bothStores.ts';
import { migratedDatabaseUrl } from '../../../support/postgres.ts';
import { composeApplication } from '../../../../src/compose/application.ts';
import type { AreaPorts } from '../../../../src/compose/area.ts';
import type { RunClaims } from '../../../../src/domain/ports/runClaims.ts';
import type { RunStore } from '../../../../src/domain/ports/runStore.ts';
import type { WriteOp } from '../../../../src/domain/ports/store.ts';

/** Holds every run's end before its write until the test lets it go; a run's enqueue too, while `holdEnqueues`. */
class EndGate {
  private readonly held: { runId: string; go: () => void }[] = [];
  private readonly watchers = new Set<() => void>();
  holdEnqueues = false;
  /** The run ids endState was asked about, in order. */
  readonly endStates: string[] = [];

  /** The run claims, each end's write held here first (and each enqueue's, while asked). */
  wrap(claims: RunClaims): RunClaims {
    return new Proxy(claims, {
      get: (target, name) => {
        if (name === 'recordEnd') {
          return async (...args: Parameters<RunClaims['recordEnd']>) => {
            await this.hold(args[0].run.run_id);
            return target.recordEnd(...args);
          };
        }
        if (name === 'endState') {
          return async (...args: Parameters<RunClaims['endState']>) => {
            this.endStates.push(args[0].run_id);
            return target.endState(...args);
          };
        }
        if (name === 'enqueue') {
          return async (...args: Parameters<RunClaims['enqueue']>) => {
            if (this.holdEnqueues) await this.hold(`enqueue ${args[1].thread_id}`);
            return target.enqueue(...args);
          };
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  /** The run store, each write of a thread held here first (as `thread write <id>`) while `holdThreadWrites`. */
  holdThreadWrites = false;
  wrapRuns(runs: RunStore): RunStore {
    return new Proxy(runs, {
      get: (target, name) => {
        if (name === 'write') {
          return async (ops: WriteOp[]) => {
            const thread = ops.find((op) => op.collection === 'threads');
            if (this.holdThreadWrites && thread) await this.hold(`thread write ${thread.id}`);
            return target.write(ops);
          };
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  private hold(key: string): Promise<void> {
    return new Promise<void>((go) => {
      this.held.push({ runId: key, go });
      for (const watch of this.watchers) watch();
    });
  }

  /** Resolves once the end of `runId` is held (read, not yet written), or the enqueue named `enqueue <thread id>`. */
  reached(runId: string): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!this.held.some((h) => h.runId === runId)) return;
        this.watchers.delete(check);
        resolve();
      };
      this.watchers.add(check);
      check();
    });
  }

  /** Lets the end of `runId` write. */
  release(runId: string): void {
    const at = this.held.findIndex((h) => h.runId === runId);
    assert.ok(at >= 0, `the end of ${runId} is held`);
    this.held.splice(at, 1)[0].go();
  }
}

const hello = (text: string) => ({ messages: [{ type: 'human', content: text }] });

for (const backend of BACKENDS) {
  describe(`a run's end written onto its thread (${backend})`, () => {
    const gate = new EndGate();
    let app: InProcessApp;
    before(async () => {
      const env: Record<string, string> = backend === 'postgres' ? { DATABASE_URL: await migratedDatabaseUrl() } : {};
      const withGate = (ports: AreaPorts) =>
        composeApplication(['agent-server'])({
          ...ports,
          runBackend: { ...ports.runBackend, claims: gate.wrap(ports.runBackend.claims), runs: gate.wrapRuns(ports.runBackend.runs) },
        });
      app = await areaApp('agent-server', { dataDir: null, env, app: withGate });
    });
    after(() => app?.close());

    const json = async (response: Response, status = 200): Promise<any> => {
      assert.equal(response.status, status, await response.clone().text());
      return response.json();
    };
    const newThread = async () => (await json(await app.api('/threads', { method: 'POST', json: {} }))).thread_id as string;
    const startRun = async (thread: string, text: string) =>
      (await json(await app.api(`/threads/${thread}/runs`, { method: 'POST', json: { assistant_id: 'echo', input: hello(text) } }))).run_id as string;
    const thread = async (id: string) => json(await app.api(`/threads/${id}`));
    const join = async (id: string, run: string) => json(await app.api(`/threads/${id}/runs/${run}/join`));

    test('keeps a patch of the thread made while the run was ending', async () => {
      const id = await newThread();
      const run = await startRun(id, 'first');
      await gate.reached(run);
      await json(await app.api(`/threads/${id}`, { method: 'PATCH', json: { metadata: { patched: 'while ending' } } }));
      gate.release(run);
      await join(id, run);
      const after = await thread(id);
      assert.equal(after.metadata.patched, 'while ending', 'the patch stays');
      assert.equal(after.status, 'idle');
      assert.deepEqual(
        after.values.messages.map((m: { type: string; content: string }) => [m.type, m.content]),
        [
          ['human', 'first'],
          ['ai', 'first'],
        ],
        "the run's values are written",
      );
    });

    test("a successful run's end is written without a read before it where the write checks the run's thread too (PostgreSQL)", async () => {
      // the end's fence finds the run running at its attempt, and a deleted thread takes its runs with it: the read before
      // the write (a statement and a round trip a run) told nothing the write does not check (issue 87)
      const id = await newThread();
      const run = await startRun(id, 'read');
      await gate.reached(run);
      gate.release(run);
      await join(id, run);
      assert.deepEqual(gate.endStates.filter((r) => r === run).length, backend === 'postgres' ? 0 : 1);
      assert.equal((await thread(id)).status, 'idle');
    });

    test('leaves the thread busy when a run was created on it while the run was ending', async () => {
      const id = await newThread();
      const first = await startRun(id, 'first');
      await gate.reached(first);
      const second = await startRun(id, 'second');
      gate.release(first);
      // the second run starts once the first's end is written, and its own end is held: the thread is busy all along
      await gate.reached(second);
      const between = await thread(id);
      assert.equal(between.status, 'busy', 'a run is in flight on the thread');
      assert.equal(between.values.messages.length, 2, "the first run's values are written");
      gate.release(second);
      await join(id, second);
      const after = await thread(id);
      assert.equal(after.status, 'idle');
      assert.equal(after.values.messages.length, 4);
    });

    test('keeps the values of a run that ended while a run was being created on the thread (the creation read the thread before)', async () => {
      const id = await newThread();
      const first = await startRun(id, 'first');
      await gate.reached(first);
      gate.holdEnqueues = true;
      const creating = startRun(id, 'second');
      await gate.reached(`enqueue ${id}`);
      gate.holdEnqueues = false;
      gate.release(first);
      await join(id, first);
      gate.release(`enqueue ${id}`);
      const second = await creating;
      await gate.reached(second);
      const between = await thread(id);
      assert.equal(between.status, 'busy');
      assert.deepEqual(
        between.values.messages.map((m: { content: string }) => m.content),
        ['first', 'first'],
        "the first run's values stay",
      );
      gate.release(second);
      await join(id, second);
      assert.equal((await thread(id)).values.messages.length, 4);
    });

    test('a pending run cancelled: the thread keeps a patch made meanwhile, and stays busy when a run was queued on it meanwhile', async () => {
      const id = await newThread();
      const later = { assistant_id: 'echo', input: hello('later'), after_seconds: 3600 };
      const queue = async () => (await json(await app.api(`/threads/${id}/runs`, { method: 'POST', json: later }))).run_id as string;
      const first = await queue();
      gate.holdThreadWrites = true;
      const cancelling = app.api(`/threads/${id}/runs/${first}/cancel`, { method: 'POST' });
      await gate.reached(`thread write ${id}`);
      gate.holdThreadWrites = false;
      await json(await app.api(`/threads/${id}`, { method: 'PATCH', json: { metadata: { patched: 'while cancelling' } } }));
      await queue();
      gate.release(`thread write ${id}`);
      assert.ok((await cancelling).status < 300);
      const after = await thread(id);
      assert.equal(after.metadata.patched, 'while cancelling', 'the patch stays');
      assert.equal(after.status, 'busy', 'a run is pending on the thread');
    });
  });
}
