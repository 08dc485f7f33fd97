// A local OTLP/HTTP collector for tests: it takes the JSON export requests
// (@opentelemetry/exporter-trace-otlp-http) and keeps each span's name with its resource's
// service.name; `arrived` resolves once what has come satisfies the check (no polling).
import http from 'node:http';

export interface ReceivedSpan {
  service: string;
  name: string;
}

export async function otlpReceiver(): Promise<{
  url: string;
  spans: () => ReceivedSpan[];
  close: () => Promise<void>;
  arrived: (test: () => boolean) => Promise<void>;
}> {
  const received: ReceivedSpan[] = [];
  const waiting = new Set<() => void>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const request = JSON.parse(body) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
            scopeSpans: Array<{ spans: Array<{ name: string }> }>;
          }>;
        };
        for (const resourceSpans of request.resourceSpans) {
          const service = resourceSpans.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) received.push({ service, name: span.name });
        }
        for (const wake of waiting) wake();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    arrived: (check) =>
      new Promise<void>((resolve) => {
        const wake = () => {
          if (!check()) return;
          waiting.delete(wake);
          resolve();
        };
        waiting.add(wake);
        wake();
      }),
  };
}
