// The run span settings read from a process's environment (issue 88: read here, by an
// adapter the composition root and each run worker call, not by the domain).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSpanSettingsFromEnv } from '../../../src/adapters/tracing/runSpanSettings.ts';

test('the service is OTEL_SERVICE_NAME, else the deployment, else agentplane', () => {
  assert.equal(runSpanSettingsFromEnv({ OTEL_SERVICE_NAME: 'svc', AGENTPLANE_DEPLOYMENT_NAME: 'dep' }).serviceName, 'svc');
  assert.equal(runSpanSettingsFromEnv({ OTEL_SERVICE_NAME: '', AGENTPLANE_DEPLOYMENT_NAME: 'dep' }).serviceName, 'dep');
  assert.equal(runSpanSettingsFromEnv({}).serviceName, 'agentplane');
});

test('content capture is on for 1 or true only', () => {
  for (const [value, on] of [
    ['1', true],
    ['true', true],
    ['0', false],
    ['yes', false],
    [undefined, false],
  ] as const) {
    assert.equal(runSpanSettingsFromEnv({ AGENTPLANE_TRACE_CONTENT: value }).traceContent, on, String(value));
  }
});

test('the version and the deployment are named when set, and no exporter is made without an endpoint', () => {
  const settings = runSpanSettingsFromEnv({ AGENTPLANE_VERSION: '1.2.3', AGENTPLANE_DEPLOYMENT_NAME: 'dep' });
  assert.equal(settings.version, '1.2.3');
  assert.equal(settings.deploymentName, 'dep');
  assert.equal(settings.exporter, undefined);
  const bare = runSpanSettingsFromEnv({});
  assert.ok(!('version' in bare) && !('deploymentName' in bare));
});

test('an OTLP endpoint gives an exporter', async () => {
  const settings = runSpanSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  assert.ok(settings.exporter);
  await settings.exporter.shutdown();
});
