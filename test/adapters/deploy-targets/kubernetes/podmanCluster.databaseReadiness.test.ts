// kube-local counts the deployment's PostgreSQL ready when it serves the deployment's login,
// not when its port accepts: PostgreSQL listens before its startup is done and refuses every
// session meanwhile with "the database system is starting up" (SQLSTATE 57P03). A CI run
// (stop 81) had a revision DEPLOYED whose first write was answered 503 with those words.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { notServing } from '../../../../src/adapters/deploy-targets/kubernetes/podmanCluster.ts';
import { freshDatabaseUrl } from '../../../support/postgres.ts';

/** The ErrorResponse PostgreSQL sends to a new session while it starts. */
function startingUp(): Buffer {
  const fields = Buffer.from('SFATAL\0VFATAL\0C57P03\0Mthe database system is starting up\0\0');
  const head = Buffer.alloc(5);
  head.write('E');
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/** A port that refuses sessions as a starting PostgreSQL does, until `started`; then forwards to `real`. */
async function startingDatabase(real: URL) {
  const state = { started: false };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    if (!state.started) {
      socket.once('data', () => socket.end(startingUp()));
      return;
    }
    const upstream = net.connect(Number(real.port), real.hostname);
    upstream.on('error', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => {
    for (const socket of sockets) socket.destroy();
    server.close();
  };
  return { port: (server.address() as net.AddressInfo).port, state, close };
}

const real = new URL(await freshDatabaseUrl());
const login = { user: decodeURIComponent(real.username), password: decodeURIComponent(real.password), database: real.pathname.slice(1) };
const database = await startingDatabase(real);
after(() => database.close());

test('a database whose port accepts while it is starting up is not serving, and says why', async () => {
  assert.equal(await notServing('127.0.0.1', database.port, login), 'the database system is starting up');
});

test('once it has started, the login is served', async () => {
  database.state.started = true;
  assert.equal(await notServing('127.0.0.1', database.port, login), null);
});

test('a wrong password is not serving: the refusal is the reason', async () => {
  assert.match((await notServing('127.0.0.1', database.port, { ...login, password: 'not-it' })) ?? '', /password authentication failed/);
});
