// A process's run spans are made with the settings its composition root installed (issue 88:
// the domain reads no environment): the exported resource names the installed service,
// version and deployment, and an exported span keeps a conversation's content only when the
// settings say so; the run's own trace keeps it either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { useRunSpanSettings } from '../../../../src/domain/ports/spanExport.ts';
import { RUN_ID_ATTRIBUTE, runSpans } from '../../../../src/domain/agent/tracing/runSpans.ts';

test('the installed settings name the resource, and content leaves only when capture is on', async () => {
  const exporter = new InMemorySpanExporter();
  let asked = 0;
  useRunSpanSettings(() => {
    asked += 1;
    return { serviceName: 'billing-agent', traceContent: false, version: '9.9.9', deploymentName: 'billing', exporter };
  });
  const { provider, collector } = runSpans();
  assert.equal(runSpans().provider, provider, 'one provider per process');
  assert.equal(asked, 1, 'the settings are asked for once, on the first run');

  const span = provider.getTracer('test').startSpan('chat model');
  span.setAttributes({ [RUN_ID_ATTRIBUTE]: 'run-1', 'agentplane.kind': 'llm', 'gen_ai.input.messages': '[{"role":"user"}]', 'gen_ai.request.model': 'm' });
  span.end();
  await provider.forceFlush();

  const [exported] = exporter.getFinishedSpans();
  assert.deepEqual(
    {
      service: exported.resource.attributes['service.name'],
      version: exported.resource.attributes['service.version'],
      deployment: exported.resource.attributes['deployment.name'],
    },
    { service: 'billing-agent', version: '9.9.9', deployment: 'billing' },
  );
  assert.equal(exported.attributes['gen_ai.input.messages'], undefined, 'content is not exported with capture off');
  assert.equal(exported.attributes['gen_ai.request.model'], 'm');
  const [kept] = collector.take('run-1');
  assert.equal(kept.attributes['gen_ai.input.messages'], '[{"role":"user"}]', "the run's own trace keeps the content");
});
