// The linear CallbackManager.copy (src/domain/agent/tracing/callbackManagerCopy.ts) against
// the one @langchain/core ships, on generated managers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { CallbackManager } from '@langchain/core/callbacks/manager';
import { linearCopy, managerClasses, originalCopy, useLinearCallbackCopy } from '../../../../src/domain/agent/tracing/callbackManagerCopy.ts';
import { fingerprint } from '../../../../src/domain/agent/tracing/knownReplacement.ts';

class NamedHandler extends BaseCallbackHandler {
  constructor(override name: string) {
    super();
  }
}

const handlerPool = ['tracer', 'console_callback_handler', 'other', 'tracer'].map((name) => new NamedHandler(name));
const keys = ['a', 'b', 'langgraph_node', 'run_id', '__proto__', 'constructor', 'toString', '1', 'z'];

const manager = fc.record({
  parentRunId: fc.option(fc.uuid(), { nil: undefined }),
  handlers: fc.array(fc.record({ handler: fc.constantFrom(...handlerPool), inherit: fc.boolean() }), { maxLength: 5 }),
  tags: fc.array(fc.record({ tags: fc.array(fc.constantFrom('x', 'y', 'langsmith:hidden', 'seq:step:1'), { maxLength: 3 }), inherit: fc.boolean() }), {
    maxLength: 4,
  }),
  metadata: fc.array(
    fc.record({
      key: fc.constantFrom(...keys),
      value: fc.oneof(fc.integer(), fc.string(), fc.constant(undefined), fc.constant({ nested: [1, 'two'] })),
      inherit: fc.boolean(),
    }),
    { maxLength: 12 },
  ),
  // keys removed from `metadata` alone (a manager built by hand can have them)
  inheritableOnly: fc.array(fc.constantFrom(...keys), { maxLength: 2 }),
  additional: fc.array(fc.constantFrom(...handlerPool), { maxLength: 3 }),
  inherit: fc.boolean(),
});

type Spec = typeof manager extends fc.Arbitrary<infer T> ? T : never;

function build(spec: Spec): CallbackManager {
  const made = new CallbackManager(spec.parentRunId);
  for (const { handler, inherit } of spec.handlers) made.addHandler(handler, inherit);
  for (const { tags, inherit } of spec.tags) made.addTags(tags, inherit);
  for (const { key, value, inherit } of spec.metadata) {
    const entry: Record<string, unknown> = {};
    Object.defineProperty(entry, key, { value, enumerable: true, writable: true, configurable: true });
    made.addMetadata(entry, inherit);
  }
  for (const key of spec.inheritableOnly) {
    Object.defineProperty(made.inheritableMetadata, key, { value: 'inherited only', enumerable: true, writable: true, configurable: true });
    delete made.metadata[key];
  }
  return made;
}

/** Everything a copy is made of, own properties in their order (an own `__proto__` included). */
function contents(made: CallbackManager) {
  const entries = (record: Record<string, unknown>) => Object.keys(record).map((key) => [key, Object.getOwnPropertyDescriptor(record, key)!.value]);
  return {
    class: made.constructor,
    parentRunId: made._parentRunId,
    handlers: made.handlers,
    inheritableHandlers: made.inheritableHandlers,
    tags: made.tags,
    inheritableTags: made.inheritableTags,
    metadata: entries(made.metadata),
    inheritableMetadata: entries(made.inheritableMetadata),
    metadataPrototype: Object.getPrototypeOf(made.metadata),
    inheritablePrototype: Object.getPrototypeOf(made.inheritableMetadata),
  };
}

test('the linear copy makes what LangChain’s copy makes: handlers, tags and metadata, each with its inheritance, in order', () => {
  const original = originalCopy(CallbackManager);
  const linear = linearCopy(CallbackManager);
  fc.assert(
    fc.property(manager, (spec) => {
      const source = build(spec);
      const expected = original.call(source, spec.additional, spec.inherit);
      const actual = linear.call(source, spec.additional, spec.inherit);
      assert.deepStrictEqual(contents(actual), contents(expected));
      // a copy shares no record with its source
      assert.notEqual(actual.metadata, source.metadata);
      assert.notEqual(actual.inheritableMetadata, source.inheritableMetadata);
      assert.notEqual(actual.handlers, source.handlers);
    }),
    { numRuns: 500 },
  );
});

test('installed on the ESM class, and on the CommonJS one once it is loaded; a copy that is not the known one is left as it is', () => {
  useLinearCallbackCopy();
  // a graph written as CommonJS loads the CommonJS build: the next run's call replaces its copy too
  const commonJs = (createRequire(import.meta.url)('@langchain/core/callbacks/manager') as { CallbackManager: typeof CallbackManager }).CallbackManager;
  assert.deepEqual(managerClasses(), [CallbackManager, commonJs]);
  assert.equal(useLinearCallbackCopy(), 2);
  assert.equal(useLinearCallbackCopy(), managerClasses().length, 'a second call changes nothing');
  for (const managerClass of managerClasses()) assert.notEqual(managerClass.prototype.copy, originalCopy(managerClass));

  // another version's copy (here: the original wrapped) keeps its own
  const ownCopy = function copy(this: CallbackManager, ...args: Parameters<CallbackManager['copy']>) {
    return originalCopy(CallbackManager).apply(this, args);
  };
  const installed = CallbackManager.prototype.copy;
  CallbackManager.prototype.copy = ownCopy;
  try {
    assert.notEqual(fingerprint(ownCopy), fingerprint(originalCopy(CallbackManager)));
    useLinearCallbackCopy();
    assert.equal(CallbackManager.prototype.copy, ownCopy);
  } finally {
    CallbackManager.prototype.copy = installed;
  }
});
