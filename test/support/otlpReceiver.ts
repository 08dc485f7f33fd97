// A local OTLP/HTTP collector for tests: it takes the JSON export requests
// (@opentelemetry/exporter-trace-otlp-http) and keeps each span (name, ids, kind, status,
// attributes and events as plain values) with its resource's attributes; `arrived` resolves
// once what has come satisfies the check (no polling).
import http from 'node:http';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  service: string;
  resource: Record<string, unknown>;
  name: string;
  spanId: string;
  parentSpanId: string;
  /** OpenTelemetry's span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** 0 unset, 1 ok, 2 error. */
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
}

const plain = (value: AnyValue): unknown =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.boolValue ??
  value.doubleValue ??
  (value.arrayValue ? (value.arrayValue.values ?? []).map(plain) : undefined);

const record = (attributes: KeyValue[] = []) => Object.fromEntries(attributes.map((a) => [a.key, plain(a.value)]));

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
            resource: { attributes: KeyValue[] };
            scopeSpans: Array<{
              spans: Array<{
                name: string;
                spanId: string;
                parentSpanId?: string;
                kind: number;
                status?: { code?: number; message?: string };
                attributes?: KeyValue[];
                events?: Array<{ name: string; attributes?: KeyValue[] }>;
              }>;
            }>;
          }>;
        };
        for (const resourceSpans of request.resourceSpans) {
          const resource = record(resourceSpans.resource.attributes);
          const service = String(resource['service.name'] ?? '');
          for (const scope of resourceSpans.scopeSpans)
            for (const span of scope.spans)
              received.push({
                service,
                resource,
                name: span.name,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                kind: span.kind,
                status: span.status ?? {},
                attributes: record(span.attributes),
                events: (span.events ?? []).map((e) => ({ name: e.name, attributes: record(e.attributes) })),
              });
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
