// The value lists generated beside the types (issue 88): code that walks a vocabulary (the run
// statuses a metric counts, the statuses a summary reports) reads it from the spec, not from a
// copy of its own that could miss a value the spec adds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { valueListName, writeTypes } from '../../../scripts/codegen/types.ts';
import * as agentServer from '../../../generated/agent-server/types.gen.ts';
import { loadDocument } from '../../../generated/agent-server/document.gen.js';
import { tempDir } from '../../support/tempDirs.ts';

type Json = any;

test('a list is named for its type in capitals, in the plural', () => {
  assert.equal(valueListName('RunStatus'), 'RUN_STATUSES');
  assert.equal(valueListName('MultitaskStrategy'), 'MULTITASK_STRATEGIES');
  assert.equal(valueListName('ThreadStreamMode'), 'THREAD_STREAM_MODES');
  assert.equal(valueListName('A2AV1Role'), 'A2AV1_ROLES');
  assert.equal(valueListName('Source'), 'SOURCES');
});

test('every string enum of the components gets its list, in the spec order; other schemas get none', async () => {
  const dir = tempDir('types-');
  try {
    const components: Json = {
      Colour: { type: 'string', enum: ['red', 'green'] },
      Count: { type: 'integer', enum: [1, 2] },
      Thing: { type: 'object', properties: { colour: { $ref: '#/components/schemas/Colour' } } },
    };
    await writeTypes(dir, '', 'Demo', components, {});
    const written = fs.readFileSync(path.join(dir, 'types.gen.ts'), 'utf8');
    assert.match(written, /export const COLOURS = \["red","green"\] as const satisfies readonly Colour\[\];/);
    assert.doesNotMatch(written, /COUNTS|THINGS/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the agent server's run, thread and stream vocabularies are the spec's enums", () => {
  const schemas: Json = (loadDocument() as Json).components.schemas;
  for (const [name, list] of [
    ['RunStatus', agentServer.RUN_STATUSES],
    ['ThreadStatus', agentServer.THREAD_STATUSES],
    ['MultitaskStrategy', agentServer.MULTITASK_STRATEGIES],
    ['ThreadStreamMode', agentServer.THREAD_STREAM_MODES],
  ] as const) {
    assert.deepEqual([...list], schemas[name].enum, name);
  }
});

test('a schema with a description alone takes any value: its type is unknown, not an object', async () => {
  const dir = tempDir('types-');
  try {
    const components: Json = { Send: { type: 'object', properties: { input: { description: 'Any JSON value.' }, node: { type: 'string' } } } };
    await writeTypes(dir, '', 'Demo', components, {});
    const written = fs.readFileSync(path.join(dir, 'types.gen.ts'), 'utf8');
    assert.match(written, /input\?: unknown;/);
    assert.match(written, /node\?: string;/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
