// The run state machine alone (no server, no store): every status against every event, the
// attempts a platform interruption costs, the thread's status after a run, how an execution's
// end becomes an event, and the multitask strategies; then random event sequences (fast-check)
// for the rules that must hold whatever happens.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  admit,
  endOf,
  EVENTS_LOST_CAUSE,
  FINAL_RUN_STATUSES,
  MAX_ATTEMPTS,
  RUN_STATUSES,
  settleThread,
  SHUTDOWN_CAUSE,
  transition,
  type Effect,
  type RunEvent,
  type RunStatus,
  type Transition,
} from '../../../../src/domain/agent/runs/runStateMachine.ts';

const boom = { error: 'ValueError', message: 'boom' };
const storeDown = { error: 'StoreUnavailable', message: 'the database went away' };

const EVENTS: Record<string, RunEvent> = {
  claim: { type: 'claim' },
  'cancel interrupt': { type: 'cancel', action: 'interrupt' },
  'cancel rollback': { type: 'cancel', action: 'rollback' },
  succeed: { type: 'succeed', waitsForInput: false },
  'succeed, waiting for input': { type: 'succeed', waitsForInput: true },
  fail: { type: 'fail', error: boom },
  'stopped interrupt': { type: 'stopped', reason: 'interrupt' },
  'stopped rollback': { type: 'stopped', reason: 'rollback' },
  'stopped lost': { type: 'stopped', reason: 'lost' },
  timedOut: { type: 'timedOut', limitMs: 1500 },
  'platform interrupted': { type: 'platformInterrupted', cause: storeDown },
  'server died': { type: 'platformInterrupted', cause: null },
};

const ENDED: Effect['type'][] = ['release', 'closeLog', 'discardTemporaryThread'];

/** What every (status, event) pair must answer: the next run state, thread status and effects; null when refused. */
function expected(status: RunStatus, name: string, attempt: number): Transition | null {
  const event = EVENTS[name];
  if (FINAL_RUN_STATUSES.has(status)) return event.type === 'cancel' ? { run: { status, attempt }, thread: null, effects: [] } : null;
  if (status === 'pending') {
    if (name === 'claim') return { run: { status: 'running', attempt }, thread: null, effects: [] };
    if (name === 'cancel interrupt')
      return { run: { status: 'interrupted', attempt }, thread: 'idle', effects: [{ type: 'closeLog' }, { type: 'discardTemporaryThread' }] };
    if (name === 'cancel rollback') return { run: null, thread: 'idle', effects: [{ type: 'closeLog' }, { type: 'discardTemporaryThread' }] };
    return null;
  }
  const ended = ENDED.map((type) => ({ type }) as Effect);
  const failed = (runStatus: 'error' | 'timeout', error: { error: string; message: string }): Transition => ({
    run: { status: runStatus, attempt, error },
    thread: 'error',
    effects: [{ type: 'publishError', error }, { type: 'setResult', from: 'error' }, ...ended, { type: 'announce' }],
  });
  switch (name) {
    case 'claim':
      return null;
    case 'cancel interrupt':
    case 'cancel rollback':
      return { run: { status, attempt }, thread: null, effects: [{ type: 'abort', reason: name === 'cancel interrupt' ? 'interrupt' : 'rollback' }] };
    case 'succeed':
    case 'succeed, waiting for input':
      return {
        run: { status: 'success', attempt },
        thread: name === 'succeed' ? 'idle' : 'interrupted',
        effects: [{ type: 'setResult', from: 'output' }, ...ended, { type: 'announce' }],
      };
    case 'fail':
      return failed('error', boom);
    case 'stopped interrupt':
      return { run: { status: 'interrupted', attempt }, thread: 'idle', effects: [...ended, { type: 'announce' }] };
    case 'stopped rollback':
      return { run: null, thread: 'idle', effects: [{ type: 'deleteCheckpoints' }, ...ended] };
    case 'stopped lost':
      return { run: { status, attempt }, thread: null, effects: [] };
    case 'timedOut':
      return failed('timeout', { error: 'TimeoutError', message: 'The run exceeded its time limit of 1.5 s (AGENTPLANE_RUN_TIMEOUT_S) and was stopped.' });
    default: {
      const cause = (EVENTS[name] as { cause: { message: string } | null }).cause;
      if (attempt < MAX_ATTEMPTS)
        return { run: { status: 'pending', attempt: attempt + 1 }, thread: null, effects: [{ type: 'requeue' }, { type: 'release' }] };
      return failed(
        'error',
        cause
          ? {
              error: 'RunInterruptedByPlatform',
              message: `The platform interrupted this run ${attempt} times (last: ${cause.message}); it was not started again.`,
            }
          : {
              error: 'RunInterruptedByServerRestart',
              message: `The server stopped while this run was in progress, ${attempt} times; it was not started again.`,
            },
      );
    }
  }
}

describe('run state machine: every status × every event', () => {
  for (const status of RUN_STATUSES) {
    for (const name of Object.keys(EVENTS)) {
      for (const attempt of [1, MAX_ATTEMPTS - 1, MAX_ATTEMPTS]) {
        it(`${status} (attempt ${attempt}) on ${name}`, () => {
          assert.deepEqual(transition({ status, attempt }, EVENTS[name]), expected(status, name, attempt));
        });
      }
    }
  }
});

describe('thread status after a run', () => {
  it('error and interrupted win over runs still waiting', () => {
    assert.equal(settleThread('error', true), 'error');
    assert.equal(settleThread('interrupted', true), 'interrupted');
  });
  it('idle is busy while other runs wait, idle otherwise', () => {
    assert.equal(settleThread('idle', true), 'busy');
    assert.equal(settleThread('idle', false), 'idle');
    assert.equal(settleThread('busy', false), 'busy');
  });
});

describe('how an execution ends', () => {
  const returned = { returned: true as const, waitsForInput: false };
  const threw = (platformCause: typeof storeDown | null, workerDied = false) => ({ returned: false as const, error: boom, platformCause, workerDied });
  it('a graph that returned succeeds; one that threw fails', () => {
    assert.deepEqual(endOf(null, returned, 0), { type: 'succeed', waitsForInput: false });
    assert.deepEqual(endOf(null, { returned: true, waitsForInput: true }, 0), { type: 'succeed', waitsForInput: true });
    assert.deepEqual(endOf(null, threw(null), 0), { type: 'fail', error: boom });
  });
  it('a failure of the platform is an interruption, not the graph’s error', () => {
    assert.deepEqual(endOf(null, threw(storeDown), 0), { type: 'platformInterrupted', cause: storeDown });
  });
  it('a stop asked for wins over what the graph did, whatever it threw', () => {
    for (const execution of [returned, threw(null), threw(storeDown)]) {
      assert.deepEqual(endOf('interrupt', execution, 0), { type: 'stopped', reason: 'interrupt' });
      assert.deepEqual(endOf('rollback', execution, 0), { type: 'stopped', reason: 'rollback' });
      assert.deepEqual(endOf('lost', execution, 0), { type: 'stopped', reason: 'lost' });
    }
  });
  it('a time limit reached is a timeout, unless a worker another run broke took the run down', () => {
    assert.deepEqual(endOf('timeout', returned, 2000), { type: 'timedOut', limitMs: 2000 });
    assert.deepEqual(endOf('timeout', threw(storeDown), 2000), { type: 'timedOut', limitMs: 2000 });
    assert.deepEqual(endOf('timeout', threw(storeDown, true), 2000), { type: 'platformInterrupted', cause: storeDown });
  });
  it('a graceful stop of the server and events that could not be kept are interruptions by the platform (a new attempt)', () => {
    for (const execution of [returned, threw(null)]) {
      assert.deepEqual(endOf('shutdown', execution, 0), { type: 'platformInterrupted', cause: SHUTDOWN_CAUSE });
      assert.deepEqual(endOf('eventsLost', execution, 0), { type: 'platformInterrupted', cause: EVENTS_LOST_CAUSE });
    }
    assert.deepEqual(transition({ status: 'running', attempt: 1 }, endOf('shutdown', returned, 0))?.run, { status: 'pending', attempt: 2 });
  });
});

describe('multitask strategies', () => {
  it('a thread with nothing in flight takes the run, whatever the strategy', () => {
    for (const strategy of ['enqueue', 'reject', 'interrupt', 'rollback'] as const) assert.deepEqual(admit(strategy, 0), { kind: 'enqueue' });
  });
  it('on a busy thread: enqueue waits, reject refuses, interrupt and rollback cancel what is in flight first', () => {
    assert.deepEqual(admit('enqueue', 2), { kind: 'enqueue' });
    assert.deepEqual(admit('reject', 1), { kind: 'reject' });
    assert.deepEqual(admit('interrupt', 1), { kind: 'cancelFirst', action: 'interrupt' });
    assert.deepEqual(admit('rollback', 3), { kind: 'cancelFirst', action: 'rollback' });
  });
});

describe('run state machine: properties over random event sequences', () => {
  const anyEvent = fc.constantFrom(...Object.values(EVENTS));

  /** Applies the events a run accepts, in order, from a new pending run; refused events change nothing. */
  const replay = (events: RunEvent[]) => {
    const states = [{ status: 'pending' as RunStatus, attempt: 1 }];
    const steps: { event: RunEvent; step: Transition }[] = [];
    for (const event of events) {
      const current = states.at(-1)!;
      const step = transition(current, event);
      if (!step) continue;
      steps.push({ event, step });
      if (!step.run) break; // deleted
      states.push({ status: step.run.status, attempt: step.run.attempt });
    }
    return { states, steps };
  };

  it('attempts only grow, by one per interruption by the platform, and never past MAX_ATTEMPTS', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 40 }), (events) => {
        const { states } = replay(events);
        for (let i = 1; i < states.length; i += 1) {
          const grew = states[i].attempt - states[i - 1].attempt;
          assert.ok(grew === 0 || (grew === 1 && states[i].status === 'pending' && states[i - 1].status === 'running'));
          assert.ok(states[i].attempt <= MAX_ATTEMPTS);
        }
      }),
    );
  });

  it('a final status is final: only a cancel is accepted, and it changes nothing', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FINAL_RUN_STATUSES), fc.integer({ min: 1, max: MAX_ATTEMPTS }), anyEvent, (status, attempt, event) => {
        const step = transition({ status, attempt }, event);
        if (event.type === 'cancel') assert.deepEqual(step, { run: { status, attempt }, thread: null, effects: [] });
        else assert.equal(step, null);
      }),
    );
  });

  it('a run claimed gives its claim back exactly once per end, except when another server took it over', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ATTEMPTS }), anyEvent, (attempt, event) => {
        const step = transition({ status: 'running', attempt }, event);
        if (!step) return;
        const releases = step.effects.filter((e) => e.type === 'release').length;
        const leftRunning = step.run?.status === 'running';
        assert.equal(releases, leftRunning ? 0 : 1);
      }),
    );
  });

  it('the platform interrupting a run over and over ends it in error after MAX_ATTEMPTS, told once to its readers', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(EVENTS['platform interrupted'], EVENTS['server died']), { minLength: MAX_ATTEMPTS, maxLength: 10 }),
        (interruptions) => {
          const events = interruptions.flatMap((e) => [EVENTS.claim, e]);
          const { states, steps } = replay(events);
          assert.deepEqual(states.at(-1), { status: 'error', attempt: MAX_ATTEMPTS });
          assert.equal(steps.filter(({ step }) => step.effects.some((e) => e.type === 'publishError')).length, 1);
        },
      ),
    );
  });

  it('the log is closed exactly when the run leaves for good, and kept open when it starts again', () => {
    fc.assert(
      fc.property(fc.constantFrom<RunStatus>('pending', 'running'), fc.integer({ min: 1, max: MAX_ATTEMPTS }), anyEvent, (status, attempt, event) => {
        const step = transition({ status, attempt }, event);
        if (!step) return;
        const closes = step.effects.some((e) => e.type === 'closeLog');
        const gone = step.run === null || FINAL_RUN_STATUSES.has(step.run.status);
        assert.equal(closes, gone);
        assert.equal(
          step.effects.some((e) => e.type === 'requeue'),
          step.run?.status === 'pending' && status === 'running',
        );
      }),
    );
  });
});
