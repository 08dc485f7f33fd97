// The revision state machine alone (no server, no store): every status against every outcome,
// with and without a build, then random walks (fast-check) for the rules that must hold
// whatever the target answers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { RevisionStatus } from '../../../generated/control-plane/types.gen.ts';
import {
  REVISION_STATUSES,
  isFinished,
  nextStep,
  reportable,
  workAt,
  type RevisionFacts,
  type Step,
  type StepOutcome,
} from '../../../src/domain/control-plane/revisionStateMachine.ts';

const OUTCOMES: Record<string, StepOutcome> = {
  noted: { kind: 'noted' },
  'built ok': { kind: 'built', ok: true, commitSha: 'a'.repeat(40) },
  'built ok, no commit': { kind: 'built', ok: true },
  'build failed': { kind: 'built', ok: false, reason: 'Build failed: exit 1', commitSha: 'b'.repeat(40) },
  'deployed ok': { kind: 'deployed', ok: true },
  'deploy failed': { kind: 'deployed', ok: false, reason: 'Deploy failed: no /ok' },
};

const BUILDS: RevisionFacts = { builds: true };
const IMAGE: RevisionFacts = { builds: false };

/** What every (status, facts, outcome) triple must answer, written out apart from the code. */
function expected(status: RevisionStatus, facts: RevisionFacts, name: string): Step | null {
  if (isFinished(status)) return { status, status_message: 'keep' };
  const outcome = OUTCOMES[name]!;
  const noted = outcome.kind === 'noted';
  switch (status) {
    case 'CREATING':
      return noted ? { status: 'QUEUED', status_message: null } : null;
    case 'QUEUED':
      return noted ? { status: facts.builds ? 'AWAITING_BUILD' : 'AWAITING_DEPLOY', status_message: null } : null;
    case 'AWAITING_BUILD':
      return noted ? { status: facts.builds ? 'BUILDING' : 'AWAITING_DEPLOY', status_message: null } : null;
    case 'BUILDING':
      if (!facts.builds) return noted ? { status: 'AWAITING_DEPLOY', status_message: null } : null;
      if (name === 'built ok') return { status: 'AWAITING_DEPLOY', status_message: null, repo_commit_sha: 'a'.repeat(40) };
      if (name === 'built ok, no commit') return { status: 'AWAITING_DEPLOY', status_message: null };
      if (name === 'build failed') return { status: 'BUILD_FAILED', status_message: 'Build failed: exit 1', repo_commit_sha: 'b'.repeat(40) };
      return null;
    case 'AWAITING_DEPLOY':
      return noted ? { status: 'DEPLOYING', status_message: null } : null;
    case 'DEPLOYING':
      if (name === 'deployed ok') return { status: 'DEPLOYED', status_message: null };
      if (name === 'deploy failed') return { status: 'DEPLOY_FAILED', status_message: 'Deploy failed: no /ok' };
      return null;
    default:
      throw new Error(`unfinished status ${status} missing from the table`);
  }
}

describe('revision state machine', () => {
  for (const facts of [BUILDS, IMAGE]) {
    for (const status of REVISION_STATUSES) {
      for (const name of Object.keys(OUTCOMES)) {
        it(`${status} × ${name} (${facts.builds ? 'built here' : 'an image'})`, () => {
          assert.deepEqual(nextStep(status, facts, OUTCOMES[name]!), expected(status, facts, name));
        });
      }
    }
  }

  it('asks the target to build only in BUILDING of a revision built here, to deploy only in DEPLOYING', () => {
    for (const status of REVISION_STATUSES) {
      assert.equal(workAt(status, BUILDS), status === 'BUILDING' ? 'build' : status === 'DEPLOYING' ? 'deploy' : null, status);
      assert.equal(workAt(status, IMAGE), status === 'DEPLOYING' ? 'deploy' : null, status);
    }
  });

  /** The outcome a target may give for the work a status asks (the only ones the engine passes). */
  const outcomeFor = (status: RevisionStatus, facts: RevisionFacts) => {
    const work = workAt(status, facts);
    if (work === 'build') return fc.constantFrom(OUTCOMES['built ok']!, OUTCOMES['built ok, no commit']!, OUTCOMES['build failed']!);
    if (work === 'deploy') return fc.constantFrom(OUTCOMES['deployed ok']!, OUTCOMES['deploy failed']!);
    return fc.constant(OUTCOMES.noted!);
  };

  it('from any status, the work the status asks always leads to a finished status within six steps, moving forward only', () => {
    const ORDER: RevisionStatus[] = ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING'];
    fc.assert(
      fc.property(fc.constantFrom(...REVISION_STATUSES), fc.boolean(), fc.array(fc.nat(), { minLength: 6, maxLength: 6 }), (start, builds, picks) => {
        const facts = { builds };
        let status: RevisionStatus = start;
        const seen: RevisionStatus[] = [status];
        for (const pick of picks) {
          if (isFinished(status)) break;
          const choices = fc.sample(outcomeFor(status, facts), { numRuns: 3, seed: pick });
          const step = nextStep(status, facts, choices[pick % choices.length]!);
          assert.ok(step, `refused ${status}`);
          if (!isFinished(step.status)) assert.ok(ORDER.indexOf(step.status) > ORDER.indexOf(status), `${status} → ${step.status} went back`);
          // a message only with a failure; a commit only out of a build
          assert.equal(step.status_message !== null, step.status.endsWith('_FAILED'));
          if (step.repo_commit_sha) assert.equal(status, 'BUILDING');
          status = step.status;
          seen.push(status);
        }
        assert.ok(isFinished(status), `stuck in ${status} after ${seen.join(' → ')}`);
        if (!builds) assert.ok(!seen.slice(1).some((s) => s === 'AWAITING_BUILD' || s === 'BUILDING' || s === 'BUILD_FAILED'), 'an image was built');
      }),
      { numRuns: 300 },
    );
  });

  it('a finished revision stays as it is, with its message, whatever it is told', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...REVISION_STATUSES.filter(isFinished)),
        fc.constantFrom(...Object.values(OUTCOMES)),
        fc.boolean(),
        (status, outcome, builds) => {
          assert.deepEqual(nextStep(status, { builds }, outcome), { status, status_message: 'keep' });
        },
      ),
    );
  });
});

describe("a listener's report moves a revision forward only", () => {
  it('answers every (from, to) pair as written out here', () => {
    const forward = ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING'] as const;
    const finishedFrom: Partial<Record<RevisionStatus, number>> = { SKIPPED: 1, CREATE_FAILED: 1, BUILD_FAILED: 3, DEPLOYED: 5, DEPLOY_FAILED: 5 };
    for (const from of REVISION_STATUSES) {
      for (const to of REVISION_STATUSES) {
        let expected: boolean;
        if (from === to) expected = true;
        else if (to === 'UNKNOWN' || to === 'INTERRUPTED') expected = false;
        else if (from === 'UNKNOWN') expected = true;
        else if (!(forward as readonly string[]).includes(from)) expected = false;
        else if ((forward as readonly string[]).includes(to)) expected = forward.indexOf(to as never) > forward.indexOf(from as never);
        else expected = finishedFrom[to] !== undefined && forward.indexOf(from as never) <= finishedFrom[to]!;
        assert.equal(reportable(from, to), expected, `${from} → ${to}`);
      }
    }
  });

  it('the probes: BUILDING after DEPLOYED, CREATING after BUILDING, DEPLOYED after BUILD_FAILED are refused', () => {
    assert.equal(reportable('DEPLOYED', 'BUILDING'), false);
    assert.equal(reportable('BUILDING', 'CREATING'), false);
    assert.equal(reportable('BUILD_FAILED', 'DEPLOYED'), false);
    assert.equal(reportable('SKIPPED', 'QUEUED'), false);
    assert.equal(reportable('AWAITING_DEPLOY', 'BUILD_FAILED'), false);
    // a deployer heard from past several steps at once
    assert.equal(reportable('QUEUED', 'DEPLOYED'), true);
    // a lost listener back: its word is the only one
    assert.equal(reportable('UNKNOWN', 'DEPLOYED'), true);
  });

  it('no walk of accepted reports ever goes back or leaves a finished status (fast-check)', () => {
    const rank = (s: RevisionStatus) => (isFinished(s) ? 6 : ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING'].indexOf(s));
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...REVISION_STATUSES.filter((s) => s !== 'UNKNOWN')), { maxLength: 20 }), (reports) => {
        let at: RevisionStatus = 'CREATING';
        for (const to of reports) {
          if (!reportable(at, to)) continue;
          assert.ok(rank(to) >= rank(at), `${at} → ${to}`);
          if (isFinished(at)) assert.equal(to, at);
          at = to;
        }
      }),
    );
  });
});
