// A CI/CD pipeline played end to end against the real server, as upstream clients do it:
// create → poll the latest revision until DEPLOYED → patch → poll → list → redeploy → delete.
import { after, before, describe, it } from 'node:test';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { failingBuildFlow, failingImageFlow, pipelineFlow } from '../../control-plane/support.ts';

describe('control plane: a CI/CD pipeline', () => {
  let server: InProcessApp;
  before(async () => (server = await areaApp('control-plane')));
  after(() => server.close());

  it('creates, deploys, patches, lists, redeploys and deletes a deployment', () => pipelineFlow(server.api));

  it('reports a failing build and keeps the previous revision serving', () => failingBuildFlow(server.api));

  it('fails the deploy of an image the deployer cannot pull; image sources skip the build', () => failingImageFlow(server.api));
});
