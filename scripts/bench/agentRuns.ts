// Runs of the shipped `agent` graph as the history benches make them (issue 91): `runs` runs,
// 10 a thread, `concurrency` threads at a time, each run POST /threads/{id}/runs/wait.
import { expectStatus, type Agentplane } from './agentplane.ts';

export const RUNS_PER_THREAD = 10;

/** Makes the runs; `threadDone` hears of each thread once its runs have answered (its number and id). */
export async function agentRuns(ap: Agentplane, runs: number, concurrency: number, threadDone?: (thread: number, threadId: string) => void): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let thread = next++; thread * RUNS_PER_THREAD < runs; thread = next++) {
        const created = await ap.api('/threads', { json: {} });
        expectStatus('create thread', created, 200);
        for (let i = 0; i < RUNS_PER_THREAD && thread * RUNS_PER_THREAD + i < runs; i += 1) {
          const res = await ap.api(`/threads/${created.body.thread_id}/runs/wait`, {
            json: { assistant_id: 'agent', input: { messages: [{ role: 'user', content: `what is ${thread} * ${i}?` }] } },
          });
          expectStatus('run', res, 200);
        }
        threadDone?.(thread, created.body.thread_id);
      }
    }),
  );
}
