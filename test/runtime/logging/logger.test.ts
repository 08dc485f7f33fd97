// The server log's lines as an operator's tools read them: one JSON object per line with the
// level by its name, the time in milliseconds, the message and the caller's fields; lines
// under LOG_LEVEL left out; an Error as its name, message and stack only; credentials in
// headers masked.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, epochMillisText, LOG_MASK, type AccessLine, type LogLevel } from '../../../src/runtime/logging/logger.ts';
import { SECRET_MASK } from '../../../src/domain/control-plane/secretMask.ts';
import { AnsweredRequest } from '../../../src/runtime/transports/http/pipeline.ts';

type Line = Record<string, any>;

/** A logger at `level` whose lines are kept, parsed, as they are written. */
function kept(level: LogLevel = 'debug', base: Record<string, unknown> = {}) {
  const raw: string[] = [];
  const log = createLogger(level, base, (line) => void raw.push(line));
  return { log, raw, lines: (): Line[] => raw.map((l) => JSON.parse(l) as Line) };
}

describe('the logger', () => {
  it('writes one JSON object per line: level by name, time in ms, msg, the fields', () => {
    const { log, raw, lines } = kept('info');
    const before = Date.now();
    log.info('request', { method: 'GET', path: '/ok', status: 200, ms: 0.3, request_id: 'r-1', operation: 'health' });
    assert.equal(raw.length, 1);
    assert.ok(raw[0]!.endsWith('\n') && !raw[0]!.slice(0, -1).includes('\n'), 'one line, newline-terminated');
    const [line] = lines();
    const { time, ...rest } = line!;
    assert.deepEqual(rest, { level: 'info', msg: 'request', method: 'GET', path: '/ok', status: 200, ms: 0.3, request_id: 'r-1', operation: 'health' });
    assert.equal(typeof time, 'number');
    assert.ok(time >= before && time <= Date.now(), 'the time of writing, in ms since the epoch');
  });

  it('names each level as LOG_LEVEL does, and writes only those at or above its level', () => {
    const { log, lines } = kept('warn');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    assert.deepEqual(
      lines().map((l) => [l.level, l.msg]),
      [
        ['warn', 'w'],
        ['error', 'e'],
      ],
    );
    assert.deepEqual(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => log.enabled(level)),
      [false, false, true, true],
    );
    const all = kept('debug');
    for (const level of ['debug', 'info', 'warn', 'error'] as const) all.log[level](level);
    assert.deepEqual(
      all.lines().map((l) => l.level),
      ['debug', 'info', 'warn', 'error'],
    );
  });

  it('writes nothing when silent', () => {
    const { log, raw } = kept('silent');
    log.error('e', { err: new Error('x') });
    assert.deepEqual(raw, []);
    assert.equal(log.enabled('error'), false);
  });

  it('a child adds its fields to every line; a line’s own field of the same name wins', () => {
    const { log, lines } = kept('info', { role: 'listener' });
    const run = log.child({ run_id: 'r-1', attempt: 1 });
    run.info('run finished', { attempt: 2, outcome: 'success' });
    log.info('plain');
    const [first, second] = lines();
    assert.equal(first!.role, 'listener');
    assert.equal(first!.run_id, 'r-1');
    assert.equal(first!.attempt, 2);
    assert.equal(first!.outcome, 'success');
    assert.equal(second!.run_id, undefined);
    assert.equal(second!.role, 'listener');
  });

  it('writes an Error, at any depth, as its name, message and stack, and none of the properties a library hung on it', () => {
    const { log, raw, lines } = kept('info');
    const err = Object.assign(new TypeError('fetch failed'), { config: { headers: { Authorization: 'Bearer sk-hung-on-the-error' } } });
    log.error('graph failed', { run_id: 'r-1', err, causes: [{ step: 1, error: new RangeError('deep') }] });
    const [line] = lines();
    assert.deepEqual(Object.keys(line!.err).sort(), ['message', 'name', 'stack']);
    assert.equal(line!.err.name, 'TypeError');
    assert.equal(line!.err.message, 'fetch failed');
    assert.match(line!.err.stack, /logger\.test/);
    assert.deepEqual({ ...line!.causes[0].error, stack: undefined }, { name: 'RangeError', message: 'deep', stack: undefined });
    assert.doesNotMatch(raw.join(''), /sk-hung-on-the-error/);
  });

  it('writes fields that refer to themselves without throwing', () => {
    const { log, lines } = kept('info');
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    log.info('cyclic', { loop });
    assert.equal(lines()[0]!.loop.self, '[Circular]');
  });

  it('masks the credentials of headers, in any line that carries them', () => {
    const { log, raw, lines } = kept('info');
    const headers = { authorization: 'Bearer sk-live-123456', 'x-api-key': 'sk-key-654321', cookie: 'session=s3cr3t', accept: 'application/json' };
    log.warn('upstream refused', { headers, req: { headers }, request: { headers } });
    const [line] = lines();
    for (const where of [line!.headers, line!.req.headers, line!.request.headers]) {
      assert.deepEqual(where, { authorization: SECRET_MASK, 'x-api-key': SECRET_MASK, cookie: SECRET_MASK, accept: 'application/json' });
      assert.equal(LOG_MASK, SECRET_MASK, 'the log masks as the responses do');
    }
    assert.doesNotMatch(raw.join(''), /sk-live|sk-key|s3cr3t/);
    assert.equal(headers.authorization, 'Bearer sk-live-123456', "the caller's object is left as it was");
  });

  describe('the access line of an answered request', () => {
    const answered: AccessLine = { method: 'GET', path: '/threads/t-1', status: 200, ms: 0.3, request_id: 'r-1', operation: 'getThread' };
    /** The raw lines of one logger, with the time of each made the same (they are written a moment apart). */
    const sameTime = (raw: string[]) => raw.map((line) => line.replace(/"time":\d+/, '"time":0'));

    it('is the line pino writes for the same fields at info, text for text: level, time, the logger’s fields, the line’s, then msg', () => {
      const { log, raw } = kept('info', { role: 'server' });
      const child = log.child({ replica_id: 'a' });
      child.access(answered);
      child.info('request', { ...answered });
      const [access, info] = sameTime(raw);
      assert.equal(access, info);
      assert.match(
        access!,
        /^\{"level":"info","time":0,"role":"server","replica_id":"a","method":"GET","path":"\/threads\/t-1","status":200,"ms":0\.3,"request_id":"r-1","operation":"getThread","msg":"request"\}\n$/,
      );
    });

    it('of a request the pipeline answered is the line of its fields: read off the request, its seconds as milliseconds to a tenth', () => {
      const { log, raw } = kept('info');
      for (const seconds of [0.00034, 0.0125, 1.23456]) {
        log.access(new AnsweredRequest('getThread', 'GET', '/threads/t-1', 200, seconds, 'r-1'));
        log.info('request', {
          method: 'GET',
          path: '/threads/t-1',
          status: 200,
          ms: Math.round(seconds * 10000) / 10,
          request_id: 'r-1',
          operation: 'getThread',
        });
      }
      const lines = sameTime(raw);
      for (let i = 0; i < lines.length; i += 2) assert.equal(lines[i], lines[i + 1]);
      assert.match(lines[0]!, /"ms":0\.3,"request_id":"r-1","operation":"getThread"/);
    });

    it('writes any text a client can send in its path or request id as JSON that reads back as sent', () => {
      const { log, raw, lines } = kept('info');
      const texts = ['/a"b', '/back\\slash', '/new\nline\ttab\u0001', '/é/日本/🙂', '/lone\ud800half', '/\udc00', '/{"level":"error"}', ''];
      for (const text of texts) log.access({ ...answered, path: text, request_id: text });
      assert.equal(raw.length, texts.length);
      for (const [i, line] of lines().entries()) {
        assert.equal(line.path, texts[i]);
        assert.equal(line.request_id, texts[i]);
        assert.equal(line.level, 'info', 'no text takes the place of a field');
      }
      assert.ok(
        raw.every((line) => !line.slice(0, -1).includes('\n')),
        'one line each',
      );
    });

    it('writes each of method, path, request id and operation as JSON whichever of them needs escaping: pino’s line, a lone surrogate as \\u', () => {
      const { log, raw } = kept('info');
      const fields = ['method', 'path', 'request_id', 'operation'] as const;
      const cases: AccessLine[] = [answered];
      for (const field of fields) for (const text of ['a"b', 'c\\d', 'e\u001ff', 'g\ud83d\ude42h', '\udc00']) cases.push({ ...answered, [field]: text });
      for (const line of cases) {
        log.access(line);
        log.info('request', { ...line });
      }
      const lines = sameTime(raw);
      assert.equal(lines.length, 2 * cases.length);
      for (let i = 0; i < cases.length; i += 1) {
        const [access, info] = [lines[2 * i]!, lines[2 * i + 1]!];
        const parsed = JSON.parse(access) as Record<string, unknown>;
        for (const field of fields) assert.equal(parsed[field], cases[i]![field]);
        // pino writes a lone surrogate as it is (not JSON text a strict reader takes); the access line escapes it, as JSON.stringify does
        if (fields.some((field) => cases[i]![field] === '\udc00')) assert.equal(access, info.replace('\udc00', '\\udc00'));
        else assert.equal(access, info, JSON.stringify(cases[i]));
      }
    });

    it('escapes a method or an operation that needs it right after a plain one of the same length was written, and writes the plain one plainly again after it', () => {
      // the line remembers the last plain method and operation: a text equal to it is not tested again, any other is
      const { log, raw } = kept('info');
      const cases: AccessLine[] = [];
      for (const [plain, escaped] of [
        ['POST', 'PO"T'],
        ['threads_create', 'threads\\create'],
      ] as const) {
        const field = plain === 'POST' ? 'method' : 'operation';
        cases.push({ ...answered, [field]: plain }, { ...answered, [field]: escaped }, { ...answered, [field]: plain }, { ...answered, [field]: escaped });
      }
      for (const line of cases) {
        log.access(line);
        log.info('request', { ...line });
      }
      const lines = sameTime(raw);
      for (let i = 0; i < cases.length; i += 1) {
        assert.equal(lines[2 * i], lines[2 * i + 1], JSON.stringify(cases[i]));
        assert.deepEqual(JSON.parse(lines[2 * i]!).method, cases[i]!.method);
      }
    });

    it('of a child carries the child’s fields and its parent’s, each logger its own, as pino’s line does', () => {
      const { log, raw } = kept('info', { role: 'server' });
      const child = log.child({ replica: 'r-2' });
      const grandchild = child.child({ area: 'threads' });
      for (const logger of [grandchild, log, child]) {
        logger.access(answered);
        logger.info('request', { ...answered });
      }
      const lines = sameTime(raw);
      for (let i = 0; i < 3; i += 1) assert.equal(lines[2 * i], lines[2 * i + 1]);
      assert.deepEqual(
        lines.filter((_, i) => i % 2 === 0).map((line) => [JSON.parse(line).replica, JSON.parse(line).area]),
        [
          ['r-2', 'threads'],
          [undefined, undefined],
          ['r-2', undefined],
        ],
      );
    });

    it('writes its ms as pino writes the number: tenths, whole milliseconds, and any other number', () => {
      const { log, raw } = kept('info');
      const values = [0, 0.1, 0.3, 1, 2.5, 10, 99.9, 100, 1234.5, 65000.1, 1e9 + 0.7, 0.05, 1.23, -0.4, 1e21, 2 ** 53];
      for (let k = 0; k < 2000; k += 7) values.push(Math.round(k * 13.37) / 10);
      for (const ms of values) {
        log.access({ ...answered, ms });
        log.info('request', { ...answered, ms });
      }
      const lines = sameTime(raw);
      for (let i = 0; i < values.length; i += 1) assert.equal(lines[2 * i], lines[2 * i + 1], String(values[i]));
    });

    it('says the time it is written, in epoch milliseconds, a line written later a later time (the text is kept for a millisecond only)', async () => {
      const { log, lines } = kept('info');
      const before = Date.now();
      log.access(answered);
      const after = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const later = Date.now();
      log.access(answered);
      const [first, second] = lines();
      assert.ok(first!.time >= before && first!.time <= after, `${first!.time} within ${before}..${after}`);
      assert.ok(second!.time >= later, `${second!.time} not before ${later}`);
    });

    it('writes its time as String writes the epoch milliseconds, whichever second and millisecond, in any order', () => {
      const now = Date.now();
      const times = [now, now + 1, now - 1, 0, 7, 999, 1000, 1001, 1_000_000, -5, 1.5, 2 ** 53, 9_999_999_999_999, 10_000_000_000_000];
      for (let ms = 0; ms < 2_500; ms += 1) times.push(Math.floor(now / 1000) * 1000 + ms);
      for (const time of [...times, ...times.reverse()]) assert.equal(epochMillisText(time), String(time));
    });

    it('writes a number JSON cannot hold as null, as pino does', () => {
      const { log, lines } = kept('info');
      log.access({ ...answered, ms: Number.NaN, status: Number.POSITIVE_INFINITY });
      assert.equal(lines()[0]!.ms, null);
      assert.equal(lines()[0]!.status, null);
    });

    it('is written only where info is, and leaves the logger’s own fields as they were', () => {
      const quiet = kept('warn');
      quiet.log.access(answered);
      assert.deepEqual(quiet.raw, []);
      const { log, lines } = kept('info', { role: 'server' });
      log.access(answered);
      log.info('after');
      assert.deepEqual(lines()[1], { level: 'info', time: lines()[1]!.time, role: 'server', msg: 'after' });
    });
  });
});
