import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApplication } from '../../src/compose/application.ts';
import type { AppFactory } from '../../src/compose/server.ts';
import { inProcessApp } from '../support/server.ts';

test('a server with a missing handler refuses to start and names it', async () => {
  const missingOne: AppFactory = async (deps) => {
    const app = await createApplication(deps);
    const { getDeployment: _drop, ...handlers } = app.handlers;
    const { 'tasks/get': _dropMethod, ...methods } = app.methods;
    return { ...app, handlers, methods };
  };
  await assert.rejects(inProcessApp({ app: missingOne, dataDir: null }), (err: Error) => {
    assert.match(err.message, /refusing to start/);
    assert.match(err.message, /getDeployment/);
    assert.match(err.message, /tasks\/get/);
    return true;
  });
});

test('a handler for an operation the spec does not declare is refused too', async () => {
  const extra: AppFactory = async (deps) => {
    const app = await createApplication(deps);
    return { ...app, handlers: { ...app.handlers, launchRocket: async () => ({ status: 200, body: {} }) } };
  };
  await assert.rejects(inProcessApp({ app: extra, dataDir: null }), /launchRocket/);
});
