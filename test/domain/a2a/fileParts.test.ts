// File parts and LangChain content blocks: what a graph reads of a client's file, and which of
// the blocks a graph (or the model behind it) answers with come back as file parts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filePartsOf, toContentBlock } from '../../../src/domain/a2a/fileParts.ts';
import { latestReply, toA2AHistory, toRunInput } from '../../../src/domain/a2a/convert.ts';

const file = (f: Record<string, string | undefined>) => ({ kind: 'file' as const, file: f as never });

test('a file part becomes the standard block of its media type: bytes as data, a URL as url, the name in metadata.filename', () => {
  assert.deepEqual(toContentBlock(file({ bytes: 'AAEC', mimeType: 'image/png', name: 'a.png' }), 'f'), {
    ok: true,
    value: { type: 'image', mimeType: 'image/png', data: 'AAEC', metadata: { filename: 'a.png' } },
  });
  assert.deepEqual(toContentBlock(file({ bytes: 'AAEC' }), 'f'), { ok: true, value: { type: 'file', mimeType: 'application/octet-stream', data: 'AAEC' } });
  assert.deepEqual(toContentBlock(file({ uri: 'https://x/a.wav', mimeType: 'Audio/wav' }), 'f'), {
    ok: true,
    value: { type: 'audio', url: 'https://x/a.wav', mimeType: 'Audio/wav' },
  });
  assert.deepEqual(toContentBlock(file({ uri: 'gs://bucket/v.mp4', mimeType: 'video/mp4' }), 'f').ok, true);
  for (const bad of [{ bytes: 'a*b=' }, { bytes: 'QUJDR' }, { uri: 'relative/path' }, { uri: '' }]) {
    const out = toContentBlock(file(bad), 'message.parts[2]');
    assert.equal(out.ok, false, JSON.stringify(bad));
    assert.equal(!out.ok && out.failure.data?.field, 'message.parts[2]');
  }
});

test('text and files of one message become one input message of blocks, in the order sent; a graph without messages refuses files', () => {
  const message = {
    kind: 'message' as const,
    messageId: 'm',
    role: 'user' as const,
    parts: [file({ uri: 'https://x/y.pdf' }), { kind: 'text' as const, text: 'read' }] as never,
  };
  assert.deepEqual(toRunInput(message, true), {
    ok: true,
    value: {
      messages: [
        {
          role: 'human',
          id: 'm',
          content: [
            { type: 'file', url: 'https://x/y.pdf' },
            { type: 'text', text: 'read' },
          ],
        },
      ],
    },
  });
  assert.equal(toRunInput({ ...message, parts: [file({ bytes: 'AA==' })] as never }, false).ok, false);
});

test("a graph's media blocks come back as file parts, in the shapes models write them", () => {
  assert.deepEqual(
    filePartsOf([
      { type: 'text', text: 'here' },
      { type: 'image', mimeType: 'image/png', data: 'AAEC', metadata: { filename: 'a.png' } },
      { type: 'file', url: 'https://x/r.pdf', mimeType: 'application/pdf', metadata: { title: 'Report' } },
      { type: 'image', data: Uint8Array.from([0, 1, 2]), mimeType: 'image/gif' },
      // v0.3 data blocks
      { type: 'image', source_type: 'base64', data: 'AAEC', mime_type: 'image/jpeg' },
      { type: 'file', source_type: 'url', url: 'https://x/f' },
      // OpenAI's image_url, a data URL inline and a link as it is
      { type: 'image_url', image_url: { url: 'data:image/webp;base64,AAEC' } },
      { type: 'image_url', image_url: 'https://x/i.jpg' },
      // a provider's file id names nothing a client can read
      { type: 'file', fileId: 'file-123' },
      { type: 'tool_use', id: 't' },
    ]),
    [
      { kind: 'file', file: { bytes: 'AAEC', name: 'a.png', mimeType: 'image/png' } },
      { kind: 'file', file: { uri: 'https://x/r.pdf', name: 'Report', mimeType: 'application/pdf' } },
      { kind: 'file', file: { bytes: 'AAEC', mimeType: 'image/gif' } },
      { kind: 'file', file: { bytes: 'AAEC', mimeType: 'image/jpeg' } },
      { kind: 'file', file: { uri: 'https://x/f' } },
      { kind: 'file', file: { bytes: 'AAEC', mimeType: 'image/webp' } },
      { kind: 'file', file: { uri: 'https://x/i.jpg' } },
    ],
  );
  assert.deepEqual(filePartsOf('just text'), []);
});

test("the reply of a turn is its last AI message with text or files; the history keeps each message's files beside its text", () => {
  const messages = [
    {
      type: 'human',
      id: 'h',
      content: [
        { type: 'text', text: 'draw' },
        { type: 'image', url: 'https://x/in.png' },
      ],
    },
    { type: 'ai', id: 'a', content: [{ type: 'image', mimeType: 'image/png', data: 'AAEC' }] },
  ];
  assert.deepEqual(latestReply(messages), { text: '', files: [{ kind: 'file', file: { bytes: 'AAEC', mimeType: 'image/png' } }], id: 'a' });
  assert.deepEqual(
    toA2AHistory(messages, { contextId: 'c', taskId: 't' }).map((m) => m.parts),
    [
      [
        { kind: 'text', text: 'draw' },
        { kind: 'file', file: { uri: 'https://x/in.png' } },
      ],
      [{ kind: 'file', file: { bytes: 'AAEC', mimeType: 'image/png' } }],
    ],
  );
});
