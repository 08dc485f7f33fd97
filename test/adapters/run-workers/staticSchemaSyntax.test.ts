// Most graphs' schemas are read from their source text alone (issue 52, point 5: a cold
// schema request within 2 s): the type checker, seconds of CPU, is not started for them, and
// the answer is the one the checker gives (scripts/compare-schema-readers.ts compares the two
// on every fixture graph). A graph whose types the text cannot tell is left to the checker.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import * as ts from 'typescript';
import { schemaReadings, staticSchemas, type TypedSchemas } from '../../../src/adapters/run-workers/staticSchemas.ts';
import { syntacticSchemas } from '../../../src/adapters/run-workers/staticSchemaSyntax.ts';
import { ROOT } from '../../support/server.ts';

type Schema = { properties: Record<string, unknown>; definitions?: Record<string, unknown> };
const MESSAGES = { type: 'array', items: { $ref: '#/definitions/BaseMessage' } };

describe('schemas read from a graph’s source text', () => {
  // a fresh copy (inside the repository, to resolve LangGraph): no answer kept on disk for it
  const dir = path.join(ROOT, '.cache', `typed-graphs-${randomUUID()}`);
  const graphs = path.join(dir, 'graphs.ts');
  before(() => fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'typed-graphs'), dir, { recursive: true }));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // each graph is read once (a later request is answered from memory)
  const reads = new Map<string, Promise<TypedSchemas>>();
  const read = (exportName: string): Promise<TypedSchemas> => {
    if (!reads.has(exportName)) reads.set(exportName, readOnce(exportName));
    return reads.get(exportName)!;
  };
  const readOnce = async (exportName: string): Promise<TypedSchemas> => {
    const checker = schemaReadings.checker;
    const syntax = schemaReadings.syntax;
    const schemas = await staticSchemas(graphs, exportName);
    assert.equal(schemaReadings.checker, checker, 'the type checker was not started');
    assert.equal(schemaReadings.syntax, syntax + 1, 'the source text answered');
    return schemas!;
  };

  it('an Annotation graph: literal unions as enums, keywords, arrays, tuples, the project’s interfaces and aliases, spread specs, reducers', async () => {
    const schemas = await read('graph');
    const state = schemas.state as unknown as Schema;
    // a spread's fields come after those written after it, as TypeScript lists them
    assert.deepEqual(Object.keys(state.properties), [
      'audited_by',
      'level',
      'count',
      'done',
      'scores',
      'address',
      'priority',
      'point',
      'notes',
      'log',
      'history',
      'anything',
      'messages',
      'status',
    ]);
    assert.deepEqual(state.properties.status, { type: 'string', enum: ['closed', 'open'] });
    assert.deepEqual(state.properties.level, { type: 'number', enum: [1, 2, 3] });
    assert.deepEqual(state.properties.done, { type: 'boolean' });
    assert.deepEqual(state.properties.scores, { type: 'array', items: { type: 'number', enum: [2, 4, 8] } });
    assert.deepEqual(state.properties.priority, { type: 'string', enum: ['high', 'low', 'urgent'] });
    assert.deepEqual(state.properties.point, { type: 'array', items: { type: 'number' } });
    assert.deepEqual(state.properties.address, {
      type: 'object',
      properties: {
        street: { type: 'string' },
        zip: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' } },
        owner: { type: 'object', properties: { name: { type: 'string' }, admin: { type: 'boolean' } } },
        greet: {},
      },
    });
    assert.deepEqual(state.properties.messages, MESSAGES);
    assert.deepEqual(state.properties.history, MESSAGES);
    assert.deepEqual(state.properties.anything, {});
    assert.ok(state.definitions?.BaseMessage);
    const input = schemas.input as unknown as Schema;
    // an update is the channel's update type: a message in any form for the messages channel
    assert.deepEqual(input.properties.log, { type: 'string' });
    assert.deepEqual(input.properties.notes, { type: 'array', items: { type: 'string' } });
    assert.ok(Array.isArray((input.properties.messages as { anyOf?: unknown[] }).anyOf));
    assert.deepEqual(schemas.output, schemas.state);
  });

  it('the config Annotation: each field’s update type without null and undefined', async () => {
    const schemas = await read('graph');
    assert.deepEqual(schemas.config, {
      type: 'object',
      properties: { model_name: { type: 'string' }, temperature: { type: 'number' }, mode: { type: 'string', enum: ['careful', 'fast'] } },
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
  });

  it('subgraphs added as nodes, from other modules and nested; a ToolNode and functions are none', async () => {
    const { subgraphs } = await read('graph');
    assert.deepEqual(Object.keys(subgraphs ?? {}), ['child', 'child|leaf']);
    assert.deepEqual((subgraphs!.child.state as unknown as Schema).properties.tone, { type: 'string', enum: ['cold', 'warm'] });
    assert.deepEqual((subgraphs!['child|leaf'].state as unknown as Schema).properties, { depth: { type: 'number' } });
  });

  it('MessagesAnnotation through a builder variable, and a factory’s graph with local annotations', async () => {
    assert.deepEqual(((await read('built')).state as unknown as Schema).properties, { messages: MESSAGES });
    const made = await read('makeGraph');
    assert.deepEqual(Object.keys((made.state as unknown as Schema).properties), ['messages', 'greeting']);
    assert.deepEqual(made.subgraphs, {}, 'a factory’s subgraphs are not read (as the checker)');
  });

  it('declared input and output: `{ stateSchema, input, output }` and `{ input, output }`, as the checker reads them (issue 90, point 1)', async () => {
    const declared = await read('declared');
    const fields = (schema: unknown) => Object.keys((schema as Schema).properties).sort();
    // the state is the whole state; the input an update of the input's channels; the output the output's values
    assert.deepEqual(fields(declared.state), ['answer', 'messages', 'question', 'scratch']);
    assert.deepEqual(fields(declared.input), ['messages', 'question']);
    assert.ok(Array.isArray(((declared.input as unknown as Schema).properties.messages as { anyOf?: unknown[] }).anyOf));
    assert.deepEqual(declared.output, { type: 'object', properties: { answer: { type: 'string' } }, $schema: 'http://json-schema.org/draft-07/schema#' });
    assert.deepEqual(fields(declared.config), ['mode', 'model_name', 'temperature']);
    const inOut = await read('inOut');
    assert.deepEqual(fields(inOut.state), ['messages', 'question'], 'without stateSchema, the state is the input');
    assert.deepEqual(fields(inOut.output), ['answer']);
    const { subgraphs: _, ...fromText } = declared;
    const { subgraphs: __, ...checked } = (await staticSchemas(graphs, 'declared', { checker: true }))!;
    assert.deepEqual(fromText, checked, 'the checker gives the same answer');
  });

  it('records of plain values (Record<string, any>, index signatures), read by the checker, refer to definitions named as upstream names them', async () => {
    assert.equal(syntacticSchemas(ts, graphs, 'loose'), undefined);
    const loose = (await staticSchemas(graphs, 'loose'))!;
    const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
    assert.deepEqual(loose.state, {
      type: 'object',
      properties: {
        info: ref('{[x:string]:any;}'),
        count: { type: 'number' },
        labels: ref('{[x:string]:string;}'),
        scores: ref('{[x:string]:number;}'),
        extra: ref('{[x:string]:{};}'),
      },
      definitions: {
        '{[x:string]:any;}': { type: 'object' },
        '{[x:string]:string;}': { type: 'object' },
        '{[x:string]:number;}': { type: 'object' },
        '{[x:string]:{};}': { type: 'object' },
      },
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
    // an input without the channel has no definition of it
    assert.deepEqual(loose.input, { type: 'object', properties: { count: { type: 'number' } }, $schema: 'http://json-schema.org/draft-07/schema#' });
  });

  it('a channel typed by its reducer alone is left to the type checker', () => {
    assert.equal(syntacticSchemas(ts, graphs, 'inferred'), undefined);
    assert.equal(syntacticSchemas(ts, graphs, 'missing'), undefined);
    assert.ok(syntacticSchemas(ts, graphs, 'graph'));
  });
});
