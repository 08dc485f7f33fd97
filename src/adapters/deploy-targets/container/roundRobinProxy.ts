// The front of a deployment with several replicas: one port (the deployment's custom_url)
// passing each request to the next replica in turn, streams included, and to the one after it
// when a replica refuses the connection. It runs as a container of the deployment's own pod
// (containerTarget.ts), so it outlives the control plane like the replicas do. The function
// is sent whole as the container's `node -e` program: it must use nothing from outside its body.
export function roundRobinProxy(listenPort: number, targets: string[]): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- runs as a CommonJS `node -e` program
  const http = require('node:http') as typeof import('node:http');
  let next = 0;
  const server = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', () => forward(0));
    const forward = (tried: number) => {
      const [host, port] = targets[(next = (next + 1) % targets.length)]!.split(':');
      const upstream = http.request({ host, port: Number(port), method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', (err) => {
        if (res.headersSent) return res.destroy();
        // a replica restarting: the next one takes the request
        if (tried + 1 < targets.length) return forward(tried + 1);
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: `no replica answered: ${err.message}` }));
      });
      res.on('close', () => upstream.destroy());
      upstream.end(Buffer.concat(body));
    };
  });
  server.listen(listenPort, '0.0.0.0');
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

/** The proxy as a `node -e` program for these targets. */
export function proxyProgram(listenPort: number, targets: string[]): string {
  // compiled by esbuild (tsx, the tests' compiled copies) the function's text may call its name
  // and require helpers, which the container lacks
  return `var __name = (f) => f, __require = require; (${roundRobinProxy.toString()})(${JSON.stringify(listenPort)}, ${JSON.stringify(targets)})`;
}
