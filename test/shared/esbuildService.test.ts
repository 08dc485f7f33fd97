// esbuild's service (a child process, ~15 MB of RSS) is stopped once no build holds it (issue 86:
// a default start kept it for the life of the server), and never under a build still in flight.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withEsbuild } from '../../src/shared/esbuildService.ts';
import { esbuildServices, esbuildServicesLeft } from '../support/esbuildServices.ts';

const tinyBuild = (esbuild: typeof import('esbuild'), text: string) =>
  esbuild.build({ stdin: { contents: `export const a: string = ${JSON.stringify(text)};`, loader: 'ts' }, write: false, format: 'esm', logLevel: 'silent' });

describe("esbuild's service lives while a build holds it", () => {
  it('a build runs in a service that is gone once it is over', async () => {
    const during = await withEsbuild(async (esbuild) => {
      const out = await tinyBuild(esbuild, 'one');
      assert.match(out.outputFiles[0].text, /"one"/);
      return esbuildServices();
    });
    assert.equal(during.length, 1, 'the build ran in a service of this process');
    assert.deepEqual(await esbuildServicesLeft(), [], 'no service left once no build holds it');
  });

  it('a build still in flight when another ends keeps the service until it ends', async () => {
    let releaseSecond!: () => void;
    const secondMayBuild = new Promise<void>((resolve) => (releaseSecond = resolve));
    const second = withEsbuild(async (esbuild) => {
      await secondMayBuild;
      return (await tinyBuild(esbuild, 'two')).outputFiles[0].text;
    });
    await withEsbuild((esbuild) => tinyBuild(esbuild, 'one'));
    assert.equal(esbuildServices().length, 1, 'the first holder is over, the second holds the service');
    releaseSecond();
    assert.match(await second, /"two"/);
    assert.deepEqual(await esbuildServicesLeft(), []);
  });

  it('a build after the service stopped starts another', async () => {
    await withEsbuild((esbuild) => tinyBuild(esbuild, 'one'));
    assert.match((await withEsbuild((esbuild) => tinyBuild(esbuild, 'again'))).outputFiles[0].text, /"again"/);
    assert.deepEqual(await esbuildServicesLeft(), []);
  });
});
