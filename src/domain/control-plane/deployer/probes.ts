// What deployers ask of this machine's network: a port to publish a deployment on, and
// whether a deployment answers its health check.
import net from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `url`/ok answers 200 within 2 s. */
export async function answersOk(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/ok`, { signal: AbortSignal.timeout(2000) })).status === 200;
  } catch {
    return false;
  }
}
