// A deleted deployment leaves no volume behind (issue 83, low: "a deleted deployment's podman
// volume was left behind once"). The volume's removal failing was ignored; now it is asked again
// while the volume is there, and a volume that outlives every attempt fails the delete (which
// the revision engine tries again later) instead of being left behind unsaid. An engine of the
// test's own, whose `volume rm` fails as podman's does while it still holds the volume.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EngineError, type ContainerEngine } from '../../../../src/adapters/images/engine.ts';
import { removeDeployment, VOLUME_REMOVAL, volumeName } from '../../../../src/adapters/deploy-targets/container/deploymentPod.ts';

/** An engine holding one volume, whose first `failures` removals fail as "being used". */
function engineWithVolume(name: string, failures: number) {
  const state = { volume: true, removals: 0 };
  const engine = {
    name: 'podman',
    async run(args: string[]): Promise<string> {
      if (args[0] === 'volume' && args[1] === 'rm') {
        state.removals++;
        if (state.removals <= failures) throw new EngineError('"podman volume rm" exited with code 2.', `Error: volume ${name} is being used`, 2);
        state.volume = false;
        return '';
      }
      if (args[0] === 'volume' && args[1] === 'inspect') {
        if (state.volume) return '[{}]';
        throw new EngineError('"podman volume inspect" exited with code 125.', `Error: no such volume ${name}`, 125);
      }
      return '';
    },
    async listImages(): Promise<string[]> {
      return [];
    },
  };
  return { engine: engine as unknown as ContainerEngine, state };
}

test('a volume the engine still holds when the pod is removed is removed all the same', async () => {
  const id = randomUUID();
  const { engine, state } = engineWithVolume(volumeName(id), 2);
  await removeDeployment(engine, id);
  assert.equal(state.volume, false, 'the volume is gone');
  assert.equal(state.removals, 3);
});

test('a volume that outlives every attempt fails the delete, naming it, rather than being left behind unsaid', async () => {
  const id = randomUUID();
  const { engine, state } = engineWithVolume(volumeName(id), Infinity);
  const pause = VOLUME_REMOVAL.pauseMs;
  VOLUME_REMOVAL.pauseMs = 1;
  try {
    await assert.rejects(removeDeployment(engine, id), (err: Error) => err.message.includes(volumeName(id)) && err.message.includes('is being used'));
  } finally {
    VOLUME_REMOVAL.pauseMs = pause;
  }
  assert.equal(state.removals, VOLUME_REMOVAL.attempts);
});
