// Where `agentplane dev` keeps its data (the API key file among it) when --data and DATA_DIR
// say nothing: `.langgraph_api/` in the project folder, which LangGraph projects' .gitignore
// covers (and dev adds it to one that does not, as upstream's does), not `data/`; a `data/` an earlier agentplane dev left there is kept (issue 56).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { devDataDir } from '../../../src/runtime/project/devDataDir.ts';
import { tempDir } from '../../support/server.ts';
import { startDev, type DevProcess } from '../../support/devProcess.ts';

describe('dev data directory', () => {
  it('is .langgraph_api/ in the project; a data/ of the project’s own is not taken', () => {
    const project = tempDir('agentplane-devdata-');
    assert.deepEqual(devDataDir(project), { dir: path.join(project, '.langgraph_api'), earlier: false });
    fs.mkdirSync(path.join(project, 'data'));
    fs.writeFileSync(path.join(project, 'data/prices.csv'), 'a,b\n');
    assert.deepEqual(devDataDir(project), { dir: path.join(project, '.langgraph_api'), earlier: false });
  });

  it('keeps the data/ an earlier agentplane dev made (its keys file, its store)', () => {
    for (const file of ['api-keys.json', 'store.json']) {
      const project = tempDir('agentplane-devdata-');
      fs.mkdirSync(path.join(project, 'data'));
      fs.writeFileSync(path.join(project, 'data', file), '{}');
      assert.deepEqual(devDataDir(project), { dir: path.join(project, 'data'), earlier: true }, file);
    }
  });

  let dev: DevProcess | undefined;
  after(() => dev?.stop());
  it('a dev started in a project folder writes its key file to .langgraph_api/ and nothing to data/', async () => {
    const project = tempDir('agentplane-devdata-');
    fs.writeFileSync(path.join(project, 'langgraph.json'), JSON.stringify({ graphs: {} }));
    fs.writeFileSync(path.join(project, '.gitignore'), 'node_modules');
    dev = await startDev(project, { AGENTPLANE_API_KEYS: '' });
    assert.ok(fs.existsSync(path.join(project, '.langgraph_api/api-keys.json')), dev.output());
    assert.ok(!fs.existsSync(path.join(project, 'data')));
    // as upstream's dev does, the project's .gitignore now lists it (kept as it was otherwise)
    assert.match(fs.readFileSync(path.join(project, '.gitignore'), 'utf8'), /^node_modules\n# [^\n]*\n\.langgraph_api\/\n$/);
    assert.match(dev.output(), new RegExp(`data\\s+${path.join(project, '.langgraph_api').replace(/[.]/g, '\\.')}\\n`));
  });
});
