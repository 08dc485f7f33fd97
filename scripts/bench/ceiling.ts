// The ceiling: a bare node:http server that answers each recorded URL with the bytes
// agentplane sent for it (same status, content type and body) and does nothing else.
// usage: node --import tsx scripts/bench/ceiling.ts <port> <routes.json>
import fs from 'node:fs';
import { createServer } from 'node:http';

interface Recorded {
  status: number;
  contentType: string;
  body: string;
}

const [port, file] = process.argv.slice(2);
const routes = new Map<string, { status: number; headers: Record<string, string | number>; body: Buffer }>();
for (const [url, r] of Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Recorded>)) {
  const body = Buffer.from(r.body);
  routes.set(url, { status: r.status, headers: { 'Content-Type': r.contentType, 'Content-Length': body.length }, body });
}
const notFound = Buffer.from('{"detail":"Not Found"}');

const server = createServer((req, res) => {
  const route = routes.get(req.url ?? '/');
  if (!route) {
    res.writeHead(404, { 'Content-Type': 'application/json', 'Content-Length': notFound.length });
    res.end(notFound);
    return;
  }
  res.writeHead(route.status, route.headers);
  res.end(route.body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
