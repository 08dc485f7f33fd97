// spec/ → generated/. Reads and checks each document, then writes per document:
//   types.gen.ts        TypeScript types for every schema and every operation part,
//                       and the value list of every string enum (RUN_STATUSES)       (codegen/types.ts)
//   operations.gen.ts   the operation table and the Handlers interface               (codegen/operations.ts)
//   methods.gen.ts      the method table and the Methods interface (OpenRPC)         (codegen/methods.ts)
//   *.validators.gen.js standalone ajv validators (params, bodies, responses, and the
//                       component schemas a document names in componentValidators)  (codegen/validators.ts)
//   reply.serializers.gen.js  fast-json-stringify serializers of JSON replies        (codegen/serializers.ts)
//   document.gen.js     the document the runtime routes, mocks and serves            (codegen/documents.ts)
// The shapes these files share with the runtime are hand-written in src/runtime/contract.ts.
// Usage: tsx scripts/generate.ts [outDir]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { documents, readOpenApi, readOpenRpc, schemaIdOf, writeDocument, type DocumentSpec } from './codegen/documents.ts';
import { collectMethods, writeMethodTable } from './codegen/methods.ts';
import { collectOperations, writeOperationTable } from './codegen/operations.ts';
import { banner, specHash, writeFile } from './codegen/output.ts';
import { PROJECT_SCHEMA_FILE, generateProjectSchema } from './codegen/projectSchema.ts';
import { validatorDefs } from './codegen/schemas.ts';
import { writeSerializers } from './codegen/serializers.ts';
import { writeTypes } from './codegen/types.ts';
import { readableStandalone, writeValidators } from './codegen/validators.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outRoot = path.resolve(process.argv[2] ?? path.join(root, 'generated'));

async function generateOpenApi(spec: DocumentSpec, header: string, outDir: string): Promise<void> {
  const doc = await readOpenApi(root, spec);
  const schemaId = schemaIdOf(spec);
  const { defs, absolute } = validatorDefs(doc, schemaId);
  const collected = collectOperations(spec.file, doc, absolute, { customAuth: spec.customAuth });
  await writeTypes(outDir, header, spec.typeName, doc.components?.schemas ?? {}, collected.types);
  // the agent server's params, one module each: a start reads the few its first requests do (api.ts)
  writeValidators(outDir, header, 'params', schemaId, defs, collected.params, { coerceTypes: 'array', useDefaults: true }, spec.key === 'agent-server');
  writeValidators(outDir, header, 'body', schemaId, defs, collected.bodies, { useDefaults: true });
  writeValidators(outDir, header, 'response', schemaId, defs, collected.responses, {});
  writeSerializers(outDir, header, doc, collected.replies);
  writeDocument(outDir, header, doc);
  writeOperationTable(outDir, header, spec.typeName, collected.operations, doc.components?.securitySchemes ?? {});
}

async function generateOpenRpc(spec: DocumentSpec, header: string, outDir: string): Promise<void> {
  const doc = readOpenRpc(root, spec);
  const schemaId = schemaIdOf(spec);
  const { defs, absolute } = validatorDefs(doc, schemaId);
  const collected = collectMethods(doc, absolute);
  await writeTypes(outDir, header, spec.typeName, doc.components?.schemas ?? {}, collected.types);
  writeValidators(outDir, header, 'params', schemaId, defs, collected.params, { useDefaults: true });
  writeValidators(outDir, header, 'response', schemaId, defs, collected.results, {});
  if (spec.componentValidators) {
    const named = Object.fromEntries(spec.componentValidators.map((name) => [name, absolute({ $ref: `#/components/schemas/${name}` })]));
    writeValidators(outDir, header, 'components', schemaId, defs, named, {});
  }
  writeDocument(outDir, header, doc);
  writeMethodTable(outDir, header, spec.typeName, collected.methods);
}

const INDEX = `export * as controlPlane from './control-plane/operations.gen.ts';
export * as agentServer from './agent-server/operations.gen.ts';
export * as a2a from './a2a/methods.gen.ts';
export * as a2aV1 from './a2a-v1/methods.gen.ts';
export * as protocol from './protocol/methods.gen.ts';
import type { ControlPlaneHandlers } from './control-plane/operations.gen.ts';
import type { AgentServerHandlers } from './agent-server/operations.gen.ts';
import type { A2AMethods } from './a2a/methods.gen.ts';
/** Every HTTP operation handled by a handler, keyed by operationId. */
export type Handlers<Ctx> = ControlPlaneHandlers<Ctx> & AgentServerHandlers<Ctx>;
/** Every JSON-RPC method of the A2A endpoint, keyed by method name. */
export type RpcMethods<Ctx> = A2AMethods<Ctx>;
`;

async function main() {
  const hashes: string[] = [];
  fs.mkdirSync(outRoot, { recursive: true });
  for (const spec of documents) {
    const hash = specHash(fs.readFileSync(path.join(root, spec.file)));
    hashes.push(hash);
    const outDir = path.join(outRoot, spec.key);
    fs.rmSync(outDir, { recursive: true, force: true });
    if (spec.kind === 'openapi') await generateOpenApi(spec, banner(hash), outDir);
    else await generateOpenRpc(spec, banner(hash), outDir);
  }
  const projectHash = specHash(fs.readFileSync(path.join(root, PROJECT_SCHEMA_FILE)));
  await generateProjectSchema(root, outRoot, (comment) => banner(projectHash, comment), readableStandalone);
  const all = specHash(hashes.join());
  writeFile(outRoot, 'index.gen.ts', banner(all) + INDEX);
  console.log(`generated ${documents.length} documents into ${path.relative(process.cwd(), outRoot) || '.'}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
