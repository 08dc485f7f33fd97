// `agentplane init` leaves a package.json listing what the scaffold's graph imports, so that
// `npm install` alone makes the new project runnable (issue 56, point 4); a package.json
// already there is the person's own: the missing packages are added to it, nothing else moves.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, tempDir } from '../support/server.ts';
import { SCAFFOLD_FILES, scaffoldProject } from '../../src/cli/scaffold.ts';
import { cliEntry } from '../support/childImports.ts';

const shipped = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

/** The packages the scaffold's source files import (bare specifiers, by package name). */
const importedPackages = () =>
  [
    ...new Set(
      Object.values(SCAFFOLD_FILES).flatMap((text) =>
        [...text.matchAll(/from '([^'.][^']*)'/g)].map(([, spec]) =>
          spec!
            .split('/')
            .slice(0, spec!.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
      ),
    ),
  ].sort();

describe('agentplane init and package.json', () => {
  it('in an empty folder writes a package.json with the packages the graph imports, and says to npm install', () => {
    const dir = path.join(tempDir('agentplane-init-'), 'My Agent');
    const stdout = execFileSync(process.execPath, [...cliEntry(), 'init', dir], { encoding: 'utf8' });
    assert.match(stdout, /Created in .*: langgraph\.json, src\/agent\.ts, package\.json\n/);
    // the temporary folder has no node_modules above it
    assert.match(stdout, /The graph imports @langchain\/langgraph and @langchain\/core: npm install\n/);
    const manifest = readJson(path.join(dir, 'package.json'));
    assert.deepEqual(manifest, {
      name: 'my-agent',
      private: true,
      type: 'module',
      dependencies: { '@langchain/langgraph': `^${shipped['@langchain/langgraph']}`, '@langchain/core': `^${shipped['@langchain/core']}` },
    });
    // the graph's peer, @langchain/core, is listed beside what it imports itself
    for (const name of importedPackages()) assert.ok(name in (manifest.dependencies as object), `${name} is imported by the scaffold`);
  });

  it('adds only the missing packages to an existing package.json and keeps the rest, indentation included', () => {
    const dir = tempDir('agentplane-init-');
    const before = '{\n\t"name": "mine",\n\t"scripts": {\n\t\t"start": "node ."\n\t},\n\t"dependencies": {\n\t\t"@langchain/core": "1.3.5"\n\t}\n}\n';
    fs.writeFileSync(path.join(dir, 'package.json'), before);
    const result = scaffoldProject(dir);
    assert.ok(result.ok);
    assert.deepEqual(result.packageJson, { action: 'merged', added: ['@langchain/langgraph'] });
    assert.deepEqual(result.created, ['langgraph.json', 'src/agent.ts']);
    assert.equal(
      fs.readFileSync(path.join(dir, 'package.json'), 'utf8'),
      before.replace('"1.3.5"\n', `"1.3.5",\n\t\t"@langchain/langgraph": "^${shipped['@langchain/langgraph']}"\n`),
    );
  });

  it('leaves a package.json that lists both (in any dependency field) or that is not JSON byte for byte as it was', () => {
    const cases = [
      ['{"devDependencies":{"@langchain/langgraph":"0.2.74"},"peerDependencies":{"@langchain/core":"*"}}', 'kept'],
      ['{ "name": "half-written",', 'unreadable'],
    ] as const;
    for (const [text, action] of cases) {
      const dir = tempDir('agentplane-init-');
      fs.writeFileSync(path.join(dir, 'package.json'), text);
      const result = scaffoldProject(dir);
      assert.ok(result.ok);
      assert.deepEqual(result.packageJson, { action, added: [] });
      assert.equal(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), text);
      // not installed there: the unreadable file cannot say so, the graph still needs them
      assert.deepEqual(result.missingPackages, ['@langchain/langgraph', '@langchain/core']);
    }
  });
});
