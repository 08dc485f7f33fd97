// The layers every image of the container suite starts from (the base image, and the server
// image of this checkout on it), built once before the suite's files start. Each file runs in
// a process of its own, and three started together each found them missing and each built
// them again (minutes of copying the server's 400 MB, under the load of the other two). The
// tests still go through the same lookups (ensureServerImage); they find them built. So too the
// test images of node and of PostgreSQL the deployer tests play: each file built its own under
// a tag of its own (PostgreSQL's three times, ~6 CPU-s each; node's twice, ~3 CPU-s each),
// now each is built once, under a tag naming what went in (nodeImage.ts, postgresImage.ts).
// Then the older tags of each are removed, one of each kept (staleImages.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContainerEngine } from '../../../src/adapters/images/engine.ts';
import { ensureServerImage } from '../../../src/adapters/images/buildImage.ts';
import { sharedNodeImage } from './nodeImage.ts';
import { sharedPostgresImage } from './postgresImage.ts';
import { baseImageTag } from '../../../src/adapters/images/baseImage.ts';
import { toolchainImageTag } from '../../../src/adapters/images/toolchainImage.ts';
import { removeStaleSharedImages } from './staleImages.ts';

const ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** Builds (when missing) the server image of this checkout and its base, and the test images; resolves with the server image's tag. */
export async function buildSharedLayers(): Promise<string> {
  const containersConf = process.env.CONTAINERS_CONF ?? path.join(ROOT, 'config', 'containers.conf');
  const engine = new ContainerEngine({ name: 'podman', env: process.env, containersConf });
  // the test images are imports of folders, independent of the server image: built meanwhile
  const [server, node, postgres] = await Promise.all([
    ensureServerImage(engine, ROOT, { onLine: (line) => console.log(line) }),
    sharedNodeImage(),
    sharedPostgresImage(),
  ]);
  console.log(`the container suite's test images: ${node}, ${postgres}`);
  const current = [server, node, postgres, baseImageTag(), toolchainImageTag()].filter((tag): tag is string => tag !== null);
  const removed = removeStaleSharedImages(current);
  if (removed.length) console.log(`removed the older shared images: ${removed.join(', ')}`);
  return server;
}
