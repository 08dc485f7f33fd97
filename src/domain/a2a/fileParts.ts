// A2A file parts and LangChain's multimodal content blocks, both ways. A file a client sends
// (inline bytes or a URL) reaches the graph as the standard block a chat model reads
// (`{type: 'image' | 'audio' | 'video' | 'file', mimeType, data | url, metadata: {filename}}`,
// @langchain/core 1.x); a block a graph answers with, in that shape or in the older ones models
// still emit (v0.3 data blocks with `source_type`, OpenAI's `image_url`), goes back as a file
// part. Nothing here fetches a URL: a URL is handed on as it was given.
import type { FilePart } from '../../../generated/a2a/types.gen.ts';
import { fail, ok, type Outcome } from '../outcome.ts';

type Block = Record<string, unknown>;

const MEDIA_BLOCKS = new Set(['image', 'audio', 'video', 'file']);
// RFC 4648 base64, standard or URL-safe alphabet (ProtoJSON reads either for bytes), padding optional
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** The block type a media type falls under: a chat model reads images, audio and video apart from other files. */
const blockType = (mimeType: string | undefined): string => {
  const top = mimeType?.split('/')[0]?.toLowerCase();
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'file';
};

/** The LangChain content block of a file part a client sent; bytes that are not base64 or a URL that does not parse are invalid. */
export function toContentBlock(part: FilePart, field: string): Outcome<Block, 'invalid'> {
  const file = part.file as { bytes?: string; uri?: string; name?: string; mimeType?: string };
  const metadata = file.name ? { metadata: { filename: file.name } } : {};
  if (typeof file.bytes === 'string') {
    if (file.bytes.length % 4 === 1 || !BASE64.test(file.bytes)) return fail('invalid', `${field}: the file's bytes must be base64`, { field });
    // a base64 block must name its media type; a file of no named type is a plain byte stream
    const mimeType = file.mimeType || 'application/octet-stream';
    return ok({ type: blockType(mimeType), mimeType, data: file.bytes, ...metadata });
  }
  if (typeof file.uri !== 'string' || !URL.canParse(file.uri)) return fail('invalid', `${field}: the file's URL must be an absolute URL`, { field });
  return ok({ type: blockType(file.mimeType), url: file.uri, ...(file.mimeType ? { mimeType: file.mimeType } : {}), ...metadata });
}

/** The file part of a content block a graph produced, or undefined when the block is not a file. */
export function fromContentBlock(block: unknown): FilePart | undefined {
  if (!block || typeof block !== 'object') return undefined;
  const b = block as Block;
  if (b.type === 'image_url') return fromUrl(typeof b.image_url === 'string' ? b.image_url : (b.image_url as Block | undefined)?.url, undefined, undefined);
  if (typeof b.type !== 'string' || !MEDIA_BLOCKS.has(b.type)) return undefined;
  const metadata = (b.metadata && typeof b.metadata === 'object' ? b.metadata : {}) as Block;
  const name = [metadata.filename, metadata.name, metadata.title].find((v): v is string => typeof v === 'string' && v !== '');
  const mimeType = [b.mimeType, b.mime_type].find((v): v is string => typeof v === 'string' && v !== '');
  // v0.3 data blocks say which of data / url they carry in source_type
  const data = b.source_type === 'url' ? undefined : b.data;
  if (typeof data === 'string' && data !== '') return filePart({ bytes: data }, name, mimeType);
  if (data instanceof Uint8Array) return filePart({ bytes: Buffer.from(data).toString('base64') }, name, mimeType);
  return fromUrl(b.url, name, mimeType);
}

/** A URL as a file part: a `data:` URL's content inline (its bytes and media type), any other as it is. */
function fromUrl(url: unknown, name: string | undefined, mimeType: string | undefined): FilePart | undefined {
  if (typeof url !== 'string' || url === '') return undefined;
  const inline = /^data:([^;,]*)(;[^,]*)?;base64,(.*)$/s.exec(url);
  if (inline) return filePart({ bytes: inline[3] }, name, mimeType ?? (inline[1] || undefined));
  return filePart({ uri: url }, name, mimeType);
}

function filePart(content: { bytes: string } | { uri: string }, name: string | undefined, mimeType: string | undefined): FilePart {
  return { kind: 'file', file: { ...content, ...(name ? { name } : {}), ...(mimeType ? { mimeType } : {}) } as FilePart['file'] };
}

/** The file parts of a message's content (a block list; a string holds none). */
export function filePartsOf(content: unknown): FilePart[] {
  if (!Array.isArray(content)) return [];
  return content.map(fromContentBlock).filter((p): p is FilePart => p !== undefined);
}
