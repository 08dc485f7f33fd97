// The A2A gRPC port's setting: on by default beside the HTTP port, named by --grpc-port or
// AGENTPLANE_GRPC_PORT (0 a free port, off none), and a value that is no port stops the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/runtime/config.ts';
import { tempDir } from '../support/server.ts';

const load = (argv: string[], env: Record<string, string> = {}) => loadConfig(['--memory', ...argv], { ...env }, tempDir());

test('default 50051 beside a fixed HTTP port, 0 beside --port 0; neither counts as named', () => {
  assert.deepEqual([load([]).grpcPort, load([]).grpcPortNamed], [50051, false]);
  assert.deepEqual([load(['--port', '0']).grpcPort, load(['--port', '0']).grpcPortNamed], [0, false]);
});

test('--grpc-port and AGENTPLANE_GRPC_PORT name it (the flag wins); off serves none', () => {
  assert.deepEqual([load(['--grpc-port', '7001']).grpcPort, load(['--grpc-port', '7001']).grpcPortNamed], [7001, true]);
  assert.equal(load([], { AGENTPLANE_GRPC_PORT: '0' }).grpcPort, 0);
  assert.equal(load(['--grpc-port', '7002'], { AGENTPLANE_GRPC_PORT: '7003' }).grpcPort, 7002);
  assert.equal(load(['--grpc-port', 'off']).grpcPort, null);
  assert.equal(load([], { AGENTPLANE_GRPC_PORT: 'OFF' }).grpcPort, null);
});

test('a value that is no port stops the start, naming the setting', () => {
  for (const bad of ['-1', '65536', 'abc', '1.5']) {
    assert.throws(() => load([], { AGENTPLANE_GRPC_PORT: bad }), /--grpc-port \/ AGENTPLANE_GRPC_PORT must be an integer from 0 to 65535/);
  }
});
