// The main thread's answers to a run worker's calls leave together once a turn, in order, and
// never after a message posted later (replyOutbox.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ReplyOutbox } from '../../../src/adapters/run-workers/replyOutbox.ts';
import type { ToWorker } from '../../../src/adapters/run-workers/protocol.ts';

/** An outbox whose turn ends when the test says, with what it posted. */
function outbox() {
  const posted: ToWorker[] = [];
  const ends: (() => void)[] = [];
  const box = new ReplyOutbox(
    (message) => posted.push(message),
    (flush) => ends.push(flush),
  );
  return { box, posted, endTurn: () => ends.splice(0).forEach((flush) => flush()), turnsAsked: () => ends.length };
}

const reply = (id: number, value?: unknown): Extract<ToWorker, { type: 'reply' }> => ({ type: 'reply', id, value });

describe('ReplyOutbox', () => {
  it('posts the answers of one turn as one message, in the order given, errors among them', () => {
    const { box, posted, endTurn, turnsAsked } = outbox();
    box.reply(reply(1, 'a'));
    box.reply({ type: 'reply', id: 2, error: { error: 'StoreWriteError', message: 'disk full' } });
    box.reply(reply(3, { kept: true }));
    assert.deepEqual(posted, [], 'nothing leaves before the turn ends');
    assert.equal(turnsAsked(), 1, 'one end of turn asked for, whatever the number of answers');
    endTurn();
    assert.deepEqual(posted, [
      {
        type: 'replies',
        replies: [reply(1, 'a'), { type: 'reply', id: 2, error: { error: 'StoreWriteError', message: 'disk full' } }, reply(3, { kept: true })],
      },
    ]);
  });

  it('posts a lone answer as it is', () => {
    const { box, posted, endTurn } = outbox();
    box.reply(reply(7, 42));
    endTurn();
    assert.deepEqual(posted, [reply(7, 42)]);
    endTurn();
    assert.equal(posted.length, 1, 'nothing is posted twice');
  });

  it('sends the answers waiting before any other message, which goes at once', () => {
    const { box, posted, endTurn } = outbox();
    box.reply(reply(1));
    box.reply(reply(2));
    box.send({ type: 'abort', runId: 'r1' });
    assert.deepEqual(posted, [
      { type: 'replies', replies: [reply(1), reply(2)] },
      { type: 'abort', runId: 'r1' },
    ]);
    box.reply(reply(3));
    endTurn();
    assert.deepEqual(posted.at(-1), reply(3), 'an answer after it waits for the turn again');
    box.send({ type: 'heap' });
    assert.deepEqual(posted.at(-1), { type: 'heap' }, 'with none waiting only the message goes');
    assert.equal(posted.length, 4);
  });

  it('answers given in the next turn go in a message of their own', () => {
    const { box, posted, endTurn } = outbox();
    box.reply(reply(1));
    endTurn();
    box.reply(reply(2));
    box.reply(reply(3));
    endTurn();
    assert.deepEqual(posted, [reply(1), { type: 'replies', replies: [reply(2), reply(3)] }]);
  });
});
