// Schemas a graph's author declared (issue 27, point 7): a Zod state and context graph's
// schemas carry real types, enums, defaults, descriptions and `langgraph_type: "messages"`
// from LangGraph's schema registry; config_schema and context_schema are the context schema.
// (test/differential compares the same answers with the upstream server's.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';

const TYPED = './test/fixtures/differential-project/src/typed.ts:graph';
type Schema = { properties: Record<string, Record<string, unknown>>; required?: string[] };

describe('declared graph schemas', () => {
  let server: InProcessApp;
  let client: Client;
  // a fresh copy of a graph only the type checker can read (no answer kept on disk for it)
  const fresh = path.join(ROOT, '.cache', `typed-graphs-${randomUUID()}`);
  before(async () => {
    fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'typed-graphs'), fresh, { recursive: true });
    server = await areaApp('agent-server', {
      // the TypeScript sources: what some of these declare is read from their types
      compiledModules: false,
      project: {
        graphs: {
          typed: TYPED,
          approval: './test/fixtures/differential-project/src/approval.ts:graph',
          configured: './test/fixtures/differential-project/src/configured.ts:graph',
          inferred: `${path.join(fresh, 'graphs.ts')}:inferred`,
          io_annotations: './test/fixtures/differential-project/src/io.ts:annotations',
          io_zod: './test/fixtures/differential-project/src/io.ts:zod',
          io_config: './test/fixtures/differential-project/src/io.ts:withConfig',
          io_state_schema: './test/fixtures/differential-project/src/io.ts:stateSchema',
        },
      },
    });
    client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch }, apiKey: server.key });
  });
  after(async () => {
    await server.close();
    fs.rmSync(fresh, { recursive: true, force: true });
  });

  it('a Zod state: types, enum, default, description and the messages channel', async () => {
    const schemas = await client.assistants.getSchemas('typed');
    const state = schemas.state_schema as unknown as Schema;
    assert.equal(state.properties.messages.langgraph_type, 'messages');
    assert.equal(state.properties.messages.type, 'array');
    assert.deepEqual(state.properties.mood, { default: 'calm', description: 'How the reply sounds', type: 'string', enum: ['calm', 'excited'] });
    assert.equal(state.properties.turns.type, 'integer');
    assert.deepEqual((schemas.input_schema as unknown as Schema).properties.mood.enum, ['calm', 'excited']);
    // the output has every field; the input (an update) needs none
    assert.deepEqual((schemas.output_schema as unknown as Schema).required, ['messages', 'mood', 'turns']);
    assert.equal((schemas.input_schema as unknown as Schema).required, undefined);
  });

  it(
    'declared input and output (issue 90, point 1): Annotation.Root, Zod and StateSchema, `{ stateSchema, input, output }` and with a config',
    { timeout: 120_000 },
    async () => {
      const fields = (schema: unknown) => Object.keys((schema as Schema).properties);
      // state {question, scratch, answer}, input {question}, output {answer}: the state schema is the whole state
      for (const graph of ['io_annotations', 'io_zod', 'io_state_schema']) {
        const schemas = await client.assistants.getSchemas(graph);
        assert.deepEqual(fields(schemas.input_schema), ['question'], graph);
        assert.deepEqual(fields(schemas.output_schema), ['answer'], graph);
        assert.deepEqual(fields(schemas.state_schema), ['question', 'scratch', 'answer'], graph);
      }
      const withConfig = await client.assistants.getSchemas('io_config');
      assert.deepEqual(fields(withConfig.input_schema), ['topic'], 'the internal loopStep and info stay out of the input');
      assert.deepEqual(fields(withConfig.output_schema), ['topic', 'loopStep', 'info', 'labels', 'counts', 'source'], 'no output declared: the state');
      assert.deepEqual(fields(withConfig.config_schema), ['max_loops']);
      // a run still returns what LangGraph returns: the whole state
      const thread = await client.threads.create();
      assert.deepEqual(await client.runs.wait(thread.thread_id, 'io_annotations', { input: { question: 'why' } }), {
        question: 'why',
        scratch: ['read: why'],
        answer: 'why? 1 note(s)',
      });
    },
  );

  it('config_schema and context_schema: the graph’s context schema', async () => {
    const schemas = await client.assistants.getSchemas('typed');
    const config = schemas.config_schema as unknown as Schema;
    assert.deepEqual(config.properties.model, { default: 'small', type: 'string', enum: ['small', 'large'] });
    assert.deepEqual(config.properties.temperature, { type: 'number', minimum: 0, maximum: 2 });
    assert.deepEqual(schemas.context_schema, schemas.config_schema);
  });

  it('an Annotation graph: its channels typed from the module’s TypeScript (as upstream’s static extraction)', { timeout: 120_000 }, async () => {
    const schemas = await client.assistants.getSchemas('approval');
    const state = schemas.state_schema as unknown as Schema & { definitions: Record<string, unknown> };
    assert.deepEqual(state.properties.decision, { type: 'string' });
    assert.deepEqual(state.properties.messages, { type: 'array', items: { $ref: '#/definitions/BaseMessage' } });
    assert.ok(state.definitions.BaseMessage, 'messages refer to a definition');
    assert.deepEqual(Object.keys((schemas.input_schema as unknown as Schema).properties).sort(), ['decision', 'messages']);
    assert.equal((schemas.config_schema as { type?: string }).type, 'object');
  });

  it(
    'an Annotation graph’s config Annotation: config_schema and context_schema typed from the module, as upstream (issue 52, point 5)',
    { timeout: 180_000 },
    async () => {
      const schemas = await client.assistants.getSchemas('configured');
      // the field's JSDoc comment is its description, as upstream's generator writes it
      const config = {
        type: 'object',
        properties: { model_name: { type: 'string', description: 'The chat model the reply names.' } },
        $schema: 'http://json-schema.org/draft-07/schema#',
      };
      assert.deepEqual(schemas.config_schema, config);
      assert.deepEqual(schemas.context_schema, config);
      // literal unions are enums (sorted, as upstream writes them), in the graph and in its subgraph
      assert.deepEqual((schemas.state_schema as unknown as Schema).properties.mood, {
        type: 'string',
        enum: ['calm', 'excited'],
        description: 'How the conversation feels.',
      });
      const child = (await client.assistants.getSubgraphs('configured')).child as unknown as { state: Schema };
      assert.deepEqual(child.state.properties.tone, { type: 'string', enum: ['cold', 'warm'] });
    },
  );

  it('the API answers while the type checker reads a graph’s types (seconds, in a worker thread)', { timeout: 180_000 }, async () => {
    let answered = false;
    const schemas = client.assistants.getSchemas('inferred').finally(() => (answered = true));
    for (let i = 0; i < 3; i++) {
      const ok = await server.api('/ok');
      assert.equal(ok.status, 200);
    }
    assert.equal(answered, false, '/ok answered three times before the schemas');
    const state = (await schemas).state_schema as unknown as Schema;
    assert.deepEqual(state.properties.items, { type: 'array', items: { type: 'string' } });
  });
});
