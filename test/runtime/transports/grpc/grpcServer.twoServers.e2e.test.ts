// Two servers on one machine, neither told a gRPC port: both serve the A2A gRPC binding. The
// second finds gRPC's default port taken by the first and takes a free one, which its card and
// its start banner name; nothing of grpc-js's own reaches the terminal.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk-v1/client';
import { GrpcTransportFactory } from '@a2a-js/sdk-v1/client/grpc';
import { Role } from '@a2a-js/sdk-v1';
import { ROOT, spawnServer, tempDir, type ChildServer } from '../../../support/server.ts';
// a free HTTP port: the gRPC port has its fixed default only beside a fixed HTTP port
import { freePort } from '../../../../scripts/freePort.ts';

const servers: ChildServer[] = [];
after(() => Promise.all(servers.map((s) => s.kill('SIGTERM'))));

/** Waits for the start banner (said once the gRPC port has settled) and returns its gRPC line. */
async function bannerGrpc(server: ChildServer): Promise<string> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const line = /^\s*A2A gRPC\s+(\S.*)$/m.exec(server.output());
    if (line) return line[1].trim();
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`no start banner:\n${server.output()}`);
}

test('a second server on the machine serves A2A gRPC with no setting, on the port its card and banner name', async () => {
  for (let i = 0; i < 2; i++) {
    // one after the other, as a developer opens a second project: the first holds the default
    const server = await spawnServer(['--port', String(await freePort()), '--memory', '--data', tempDir(), '--config', path.join(ROOT, 'agentplane.json')], {
      AGENTPLANE_API_KEYS: '',
    });
    servers.push(server);
    await bannerGrpc(server);
  }
  const ports: number[] = [];
  for (const server of servers) {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json?assistant_id=echo`, { headers: { 'A2A-Version': '1.0' } })).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    const grpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC');
    assert.ok(grpc, `the card lists gRPC:\n${server.output()}`);
    assert.equal(await bannerGrpc(server), grpc.url, 'the banner names the port the card names');
    ports.push(Number(grpc.url.split(':').pop()));

    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
    });
    const client = await new ClientFactory(options).createFromUrl(server.url, '/.well-known/agent-card.json?assistant_id=echo');
    assert.equal((client as unknown as { transport: { protocolName: string } }).transport.protocolName, 'GRPC');
    const sent = await client.sendMessage({
      tenant: '',
      metadata: {},
      message: {
        messageId: crypto.randomUUID(),
        role: Role.ROLE_USER,
        parts: [{ content: { $case: 'text', value: 'hello' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
        taskId: '',
        contextId: '',
        extensions: [],
        metadata: {},
        referenceTaskIds: [],
      },
      configuration: undefined,
    });
    assert.ok(sent, 'the call over gRPC is answered');
  }
  assert.notEqual(ports[0], ports[1], 'each server on a port of its own');
  const output = servers.map((s) => s.output()).join('\n');
  assert.doesNotMatch(output, /No address added|^[EWID] /m, 'no line of grpc-js reaches the terminal');
});
