// The layers every image of the container suite starts from (the base image, and the server
// image of this checkout on it), built once before the suite's files start. Each file runs in
// a process of its own, and three started together each found them missing and each built
// them again (minutes of copying the server's 400 MB, under the load of the other two). The
// tests still go through the same lookups (ensureServerImage); they find them built.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContainerEngine } from '../../../src/adapters/images/engine.ts';
import { ensureServerImage } from '../../../src/adapters/images/buildImage.ts';

const ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** Builds (when missing) the server image of this checkout and its base; resolves with the server image's tag. */
export async function buildSharedLayers(): Promise<string> {
  const containersConf = process.env.CONTAINERS_CONF ?? path.join(ROOT, 'config', 'containers.conf');
  const engine = new ContainerEngine({ name: 'podman', env: process.env, containersConf });
  return ensureServerImage(engine, ROOT, { onLine: (line) => console.log(line) });
}
