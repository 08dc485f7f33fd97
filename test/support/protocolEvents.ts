// Reading the thread-centric streaming protocol's SSE stream in tests (POST /threads/{id}/stream/events).
import assert from 'node:assert/strict';

export interface ProtocolEvent {
  type: string;
  event_id: string;
  seq: number;
  method: string;
  params: { namespace: string[]; timestamp: number; node?: string; data: any };
}

/** POST with JSON (and the API key, when given) to the server (through its fetch when it has one: an in-process app). */
export function api(server: { url: string; fetch?: typeof fetch }, key?: string) {
  return (pathname: string, json: unknown) =>
    (server.fetch ?? fetch)(server.url + pathname, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(key ? { 'X-Api-Key': key } : {}) },
      body: JSON.stringify(json),
    });
}

/** The stream's events until `done` says so (the stream stays open: it is closed then). */
export async function events(response: Response, done: (event: ProtocolEvent, all: ProtocolEvent[]) => boolean): Promise<ProtocolEvent[]> {
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const out: ProtocolEvent[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return out;
      buffer += value;
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (!data) continue;
        const event = JSON.parse(data) as ProtocolEvent;
        assert.match(frame, new RegExp(`^id: ${event.event_id}$`, 'm'));
        assert.match(frame, new RegExp(`^event: ${event.method.replace('.', '\\.')}$`, 'm'));
        out.push(event);
        if (done(event, out)) return out;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** The root lifecycle's end: the run completed, stopped for input or failed. */
export const rootEnd = (e: ProtocolEvent) => e.method === 'lifecycle' && e.params.namespace.length === 0 && e.params.data.event !== 'running';
