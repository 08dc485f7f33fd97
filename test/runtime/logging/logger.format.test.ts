// The log's format follows where it goes: readable lines for a person at a terminal, one JSON
// object per line when piped (a log shipper, a file); LOG_FORMAT=json|pretty overrides both.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import { logSink } from '../../../src/runtime/logging/logOutput.ts';

/** One info line with a field, written through the writer chosen for this output and setting. */
async function logged(isTTY: boolean, LOG_FORMAT?: string): Promise<string> {
  let text = '';
  const sink = await logSink({ LOG_FORMAT }, { isTTY, write: (t: string) => (text += t) });
  createLogger('info', {}, sink).info('agentplane listening', { url: 'http://127.0.0.1:8123' });
  return text;
}

const isJsonLine = (text: string) => {
  assert.ok(text.endsWith('\n') && !text.slice(0, -1).includes('\n'), `one line: ${text}`);
  const line = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual([line.level, line.msg, line.url], ['info', 'agentplane listening', 'http://127.0.0.1:8123']);
};

const isReadable = (text: string, colours: boolean) => {
  assert.throws(() => JSON.parse(text), 'not JSON');
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\u001b\[\d+m/g, '');
  assert.match(plain, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: agentplane listening\n\s+url: "http:\/\/127\.0\.0\.1:8123"\n$/);
  assert.equal(plain !== text, colours, colours ? 'coloured at a terminal' : 'no colour codes off a terminal');
};

describe('log format', () => {
  it('is readable and coloured at a terminal', async () => isReadable(await logged(true), true));
  it('is JSON lines when piped', async () => isJsonLine(await logged(false)));
  it('LOG_FORMAT=json keeps JSON lines at a terminal', async () => isJsonLine(await logged(true, 'json')));
  it('LOG_FORMAT=pretty makes piped lines readable, without colours', async () => isReadable(await logged(false, 'pretty'), false));
});
