// The generated contract, loaded once: operation tables, bundled documents and validators.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MethodSpec, OperationSpec, Validator } from '../../generated/runtime-types.gen.ts';
import { operations as controlPlaneOperations } from '../../generated/control-plane/operations.gen.ts';
import { operations as agentServerOperations } from '../../generated/agent-server/operations.gen.ts';
import { methods as a2aMethods } from '../../generated/a2a/methods.gen.ts';
import * as cpParams from '../../generated/control-plane/params.validators.gen.js';
import * as cpBody from '../../generated/control-plane/body.validators.gen.js';
import * as asParams from '../../generated/agent-server/params.validators.gen.js';
import * as asBody from '../../generated/agent-server/body.validators.gen.js';
import * as a2aParams from '../../generated/a2a/params.validators.gen.js';

export type ValidatorTable = Readonly<Record<string, Validator>>;

export interface ApiDocument {
  key: 'control-plane' | 'agent-server';
  document: Record<string, any>;
  operations: readonly OperationSpec[];
  params: ValidatorTable;
  body: ValidatorTable;
}

const readDocument = (key: string) =>
  JSON.parse(fs.readFileSync(fileURLToPath(new URL(`../../generated/${key}/document.gen.json`, import.meta.url)), 'utf8'));

export const apiDocuments: ApiDocument[] = [
  { key: 'control-plane', document: readDocument('control-plane'), operations: controlPlaneOperations, params: cpParams as ValidatorTable, body: cpBody as ValidatorTable },
  { key: 'agent-server', document: readDocument('agent-server'), operations: agentServerOperations, params: asParams as ValidatorTable, body: asBody as ValidatorTable },
];

export const rpcDocument = {
  key: 'a2a' as const,
  document: readDocument('a2a') as Record<string, any>,
  methods: a2aMethods as readonly MethodSpec[],
  params: a2aParams as ValidatorTable,
};

/** Response validators are only needed when checking replies (tests, AGENTPLANE_VALIDATE_RESPONSES). */
export async function loadResponseValidators(): Promise<{ http: ValidatorTable; rpc: ValidatorTable }> {
  const [cp, as, a2a] = await Promise.all([
    import('../../generated/control-plane/response.validators.gen.js'),
    import('../../generated/agent-server/response.validators.gen.js'),
    import('../../generated/a2a/response.validators.gen.js'),
  ]);
  return { http: { ...(cp as ValidatorTable), ...(as as ValidatorTable) }, rpc: a2a as ValidatorTable };
}
