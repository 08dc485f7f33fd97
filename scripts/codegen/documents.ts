// The specification documents: which ones there are, how each is read and checked
// (OpenAPI by swagger-parser, OpenRPC against its meta-schema), and document.gen.js, the
// document as the runtime serves and mocks it.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import SwaggerParser from '@apidevtools/swagger-parser';
import AjvDraft7Module from 'ajv';
import metaSchemaModule from '@open-rpc/meta-schema';
import jsonSchemaToolsMeta from '@json-schema-tools/meta-schema';
import { jsLiteral, writeFile } from './output.ts';
import type { Json } from './schemas.ts';
import { addFormats } from './validators.ts';
import { inlineForeignSchemas } from './foreignSchemas.ts';

const AjvDraft7 = (AjvDraft7Module as Json).default ?? AjvDraft7Module;

export interface DocumentSpec {
  key: string; // folder and identifier prefix
  file: string;
  kind: 'openapi' | 'openrpc';
  typeName: string; // e.g. ControlPlane → ControlPlaneHandlers
  /** Its REST operations run under the project's custom auth: each declares `x-auth`. */
  customAuth?: boolean;
  /** Component schemas that get their own validator (components.validators.gen.js): messages no method param or result names. */
  componentValidators?: string[];
}

export const documents: DocumentSpec[] = [
  { key: 'control-plane', file: 'spec/control-plane.openapi.yaml', kind: 'openapi', typeName: 'ControlPlane' },
  { key: 'agent-server', file: 'spec/agent-server.openapi.yaml', kind: 'openapi', typeName: 'AgentServer', customAuth: true },
  { key: 'a2a', file: 'spec/a2a.openrpc.json', kind: 'openrpc', typeName: 'A2A' },
  // A2A v1.0 on the same endpoint: the request's A2A-Version picks this document or the one above
  { key: 'a2a-v1', file: 'spec/a2a-v1.openrpc.json', kind: 'openrpc', typeName: 'A2AV1' },
  // the thread protocol's framing: commands in, answers and events out (over HTTP and the WebSocket)
  {
    key: 'protocol',
    file: 'spec/protocol.openrpc.json',
    kind: 'openrpc',
    typeName: 'Protocol',
    componentValidators: ['Command', 'CommandReply', 'Event', 'EventStreamRequest'],
  },
];

/** The `$id` under which a document's schemas are compiled into validators. */
export const schemaIdOf = (spec: DocumentSpec) => `https://agentplane.local/${spec.key}.json`;

export async function readOpenApi(root: string, spec: DocumentSpec): Promise<Json> {
  const file = path.join(root, spec.file);
  const doc: Json = inlineForeignSchemas(YAML.parse(fs.readFileSync(file, 'utf8')), path.dirname(file));
  await SwaggerParser.validate(structuredClone(doc));
  return doc;
}

export function readOpenRpc(root: string, spec: DocumentSpec): Json {
  const doc: Json = JSON.parse(fs.readFileSync(path.join(root, spec.file), 'utf8'));
  const meta: Json = (metaSchemaModule as Json).default ?? metaSchemaModule;
  const metaAjv = new AjvDraft7({ strict: false, allErrors: true, validateSchema: false });
  addFormats(metaAjv);
  // the OpenRPC meta-schema refers to the JSON Schema tools' meta-schema by its URL
  const toolsMeta: Json = structuredClone((jsonSchemaToolsMeta as Json).default ?? jsonSchemaToolsMeta);
  delete toolsMeta.$schema;
  metaAjv.addSchema(toolsMeta);
  metaAjv.addSchema({ ...toolsMeta, $id: 'https://meta.json-schema.tools' });
  if (!metaAjv.validate(meta, doc)) throw new Error(`${spec.file}: not a valid OpenRPC document: ${metaAjv.errorsText()}`);
  return doc;
}

/**
 * document.gen.js: `loadDocument()` returns a fresh copy of the document. A JavaScript
 * literal rather than JSON so that long descriptions are split over lines (a spec change
 * is a readable diff); V8 reads it about as fast as JSON. Nothing a start or a request reads
 * is here (an OpenAPI document's security schemes are in operations.gen.ts): the module is
 * imported by what reads a whole document, so a start does not parse it.
 */
export function writeDocument(outDir: string, header: string, doc: Json): void {
  const js = `${header}/* eslint-disable */\nexport function loadDocument() {\n  return ${jsLiteral(doc, '  ')};\n}\n`;
  writeFile(outDir, 'document.gen.js', js);
  writeFile(
    outDir,
    'document.gen.d.ts',
    `${header}/** A fresh copy of the bundled document. */\nexport declare function loadDocument(): Record<string, any>;\n`,
  );
}
