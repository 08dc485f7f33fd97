// One build of a shared layer (the base image, the server image) at a time per engine and
// tag. Each is looked up by its tag and built when missing; without this, two builds started
// together (two deployments created at once, the build tests of one run) each found it
// missing and each built it again (a 400 MB layer, minutes of copying), the first copy left
// behind untagged.
import type { ContainerEngine } from './engine.ts';

const inFlight = new WeakMap<ContainerEngine, Map<string, Promise<string>>>();

/** `ensure()`'s result for `tag`; a call while another for the same engine and tag runs shares its outcome. */
export function buildOnce(engine: ContainerEngine, tag: string, ensure: () => Promise<string>): Promise<string> {
  let builds = inFlight.get(engine);
  if (!builds) inFlight.set(engine, (builds = new Map()));
  const running = builds.get(tag);
  if (running) return running;
  const started = ensure().finally(() => builds.delete(tag));
  builds.set(tag, started);
  return started;
}
