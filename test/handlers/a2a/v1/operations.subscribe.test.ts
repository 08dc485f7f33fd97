// SubscribeToTask ends where the task stops (issue 85, point 7): a subscription opened while a
// task works closes at INPUT_REQUIRED with that status delivered, and one still open when the
// task is canceled delivers CANCELED. Looped, with the event loop kept busy beside it (the race
// was seen about once in five runs under load): over JSON-RPC through the SDK's default client
// (the operation every binding shares) and over HTTP+JSON's Server-Sent Events; with graphs on
// the request loop and in worker threads (the product's default, where the race was seen).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState, type StreamResponse } from '@a2a-js/sdk-v1';
import type { Client } from '@a2a-js/sdk-v1/client';
import { type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { defaultClient, sendRequest, sse, text, userMessage, v1Graphs } from '../v1harness.ts';

const RUNS = 50;
/** Longer than any subscription takes to close once its task has stopped at an interrupt. */
const CLOSES_WITHIN_MS = 5_000;
/** How long a task may take to reach its interrupt: a worker's first start on a loaded machine takes seconds. */
const STOPS_WITHIN_MS = 60_000;

/** What the noise waits on: never notified, so each wait lasts its whole timeout. */
const neverNotified = new Int32Array(new SharedArrayBuffer(4));

/**
 * Scheduling noise: the event loop blocked a few milliseconds at a time, and a chain of
 * setImmediate turns between. The block is a wait, not a spin: the loop is held exactly as long,
 * but the core is left to the run workers and the other test processes (a spin cost this file
 * ~15 CPU-s of npm test's budget).
 */
function noise(): () => void {
  let on = true;
  const spin = () => {
    if (!on) return;
    Atomics.wait(neverNotified, 0, 0, 3);
    setImmediate(() => setTimeout(spin, Math.random() * 4));
  };
  spin();
  return () => {
    on = false;
  };
}

/**
 * How long between reads of a task's stored state while its subscription is open. The clock of
 * CLOSES_WITHIN_MS starts at the stop the status records, not at the read that sees it, so the
 * reads need not be close together: most subscriptions close before the first.
 */
const READ_EVERY_MS = 250;

/**
 * When the task stopped at INPUT_REQUIRED (read apart from any stream): its stored status's
 * time, or the start of the last read that found it still working, whichever is later (no
 * later than the stop). Never settles once `closed` has (the subscription ended by itself:
 * nothing waits on the stop, and reading on would cost each run reads for nothing).
 */
async function inputRequiredAt(client: Client, id: string, closed: Promise<unknown>): Promise<number> {
  let over = false;
  void closed.finally(() => (over = true)).catch(() => undefined);
  const deadline = Date.now() + STOPS_WITHIN_MS;
  let working = Date.now();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
    if (over) return new Promise<never>(() => {});
    const reading = Date.now();
    const task = await client.getTask({ tenant: '', id, historyLength: undefined });
    if (task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) return Math.max(Date.parse(task.status.timestamp ?? '') || 0, working);
    working = reading;
  }
  throw new Error(`task ${id} did not reach INPUT_REQUIRED within ${STOPS_WITHIN_MS} ms`);
}

const stateOf = (event: StreamResponse) => (event.payload?.value as { status?: { state: TaskState } }).status?.state;

/**
 * Every event of a stream, or `open` when it has not closed by itself within CLOSES_WITHIN_MS of
 * its task's stop (`stoppedAt`, a time). The time is counted from the stop, not from the
 * subscription: a task slow to reach its interrupt (a worker starting on a busy machine) is no race.
 */
async function untilClosed<T>(events: Promise<T[]>, stoppedAt: Promise<number> = Promise.resolve(Date.now())): Promise<T[] | 'open'> {
  let timer: NodeJS.Timeout | undefined;
  let decided = false;
  const late = stoppedAt.then((at) =>
    decided
      ? ('open' as const)
      : new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), Math.max(0, at + CLOSES_WITHIN_MS - Date.now())))),
  );
  try {
    return await Promise.race([events, late]);
  } finally {
    decided = true;
    clearTimeout(timer);
  }
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

for (const runWorkers of ['0', '2']) {
  describe(runWorkers === '0' ? 'graphs on the request loop' : 'graphs in worker threads', () => {
    let server: InProcessApp;
    let approval: Client;
    let slow: Client;

    before(async () => {
      server = await areaApp('a2a', { project: { graphs: v1Graphs }, runWorkers });
      approval = await defaultClient(server.url, 'approval', server.fetch);
      slow = await defaultClient(server.url, 'slow', server.fetch);
    });
    after(() => server.close());

    test(`JSON-RPC: a subscription opened while the task works closes at INPUT_REQUIRED, ${RUNS} runs in a row under noise`, async () => {
      const quiet = noise();
      try {
        for (let run = 0; run < RUNS; run++) {
          const sent = await approval.sendMessage(sendRequest(userMessage([text(`email ann about run ${run}`)]), { returnImmediately: true }));
          assert.ok('id' in sent);
          const stream = collect(approval.resubscribeTask({ tenant: '', id: sent.id }));
          const events = await untilClosed(stream, inputRequiredAt(approval, sent.id, stream));
          assert.notEqual(events, 'open', `run ${run}: the subscription stayed open at the interrupt`);
          const states = (events as StreamResponse[]).map(stateOf);
          assert.equal(states.at(-1), TaskState.TASK_STATE_INPUT_REQUIRED, `run ${run}: ${JSON.stringify(states)}`);
          const got = await approval.getTask({ tenant: '', id: sent.id, historyLength: undefined });
          assert.equal(got.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
        }
      } finally {
        quiet();
      }
    });

    test(`JSON-RPC: a subscription open when the task is canceled delivers CANCELED, ${RUNS} runs in a row under noise`, async () => {
      const quiet = noise();
      try {
        for (let run = 0; run < RUNS; run++) {
          const sent = await slow.sendMessage(sendRequest(userMessage([text('wait')]), { returnImmediately: true }));
          assert.ok('id' in sent);
          const seen: StreamResponse[] = [];
          const followed = (async () => {
            for await (const event of slow.resubscribeTask({ tenant: '', id: sent.id })) seen.push(event);
          })();
          while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
          const canceled = await slow.cancelTask({ tenant: '', id: sent.id, metadata: undefined });
          assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
          assert.notEqual(await untilClosed(followed.then(() => seen)), 'open', `run ${run}: the subscription outlived the cancel`);
          assert.equal(stateOf(seen.at(-1)!), TaskState.TASK_STATE_CANCELED, `run ${run}: ${JSON.stringify(seen.map(stateOf))}`);
        }
      } finally {
        quiet();
      }
    });

    test(`HTTP+JSON: a subscription opened while the task works closes at TASK_STATE_INPUT_REQUIRED, ${RUNS} runs in a row under noise`, async () => {
      const rest = (path: string, body: unknown) =>
        server.fetch(`${server.url}/a2a/approval/v1${path}`, {
          method: 'POST',
          headers: { 'A2A-Version': '1.0', 'content-type': 'application/a2a+json' },
          body: JSON.stringify(body),
        });
      const quiet = noise();
      try {
        for (let run = 0; run < RUNS; run++) {
          const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `email bo about run ${run}` }] };
          const sent = (await (await rest('/message:send', { message, configuration: { returnImmediately: true } })).json()) as { task: { id: string } };
          const res = await rest(`/tasks/${sent.task.id}:subscribe`, {});
          assert.equal(res.status, 200);
          const stream = sse(res);
          const events = await untilClosed(stream, inputRequiredAt(approval, sent.task.id, stream));
          assert.notEqual(events, 'open', `run ${run}: the subscription stayed open at the interrupt`);
          const states = (events as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } }[]).map(
            (e) => (e.task ?? e.statusUpdate)?.status.state,
          );
          assert.equal(states.at(-1), 'TASK_STATE_INPUT_REQUIRED', `run ${run}: ${JSON.stringify(states)}`);
        }
      } finally {
        quiet();
      }
    });
  });
}
