// A TCP proxy in front of a database, for outages timed to the millisecond whatever the load
// of the machine (pg_ctl's stop and start take seconds of their own on a loaded host): `cut()`
// ends every connection through it and refuses new ones, as a database restart or a network
// cut looks to its clients (their sessions end, so do the locks they held); `restore()` lets
// connections through again.
import net from 'node:net';

export interface DropProxy {
  /** `url` with the proxy's host and port. */
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function dropProxy(url: string): Promise<DropProxy> {
  const target = new URL(url);
  const open = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      open.add(from);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        open.delete(from);
        to.destroy();
      });
      from.pipe(to);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    cut() {
      down = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
