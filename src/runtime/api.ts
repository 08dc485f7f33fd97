// The generated contract, loaded once: operation tables, bundled documents and validators.
import type { RpcContext } from './context.ts';
import type { MethodSpec, OperationSpec, SerializerTable, ValidatorTable } from './contract.ts';
import { JsonRpcDispatcher, type RpcMethodHandler } from './jsonrpc.ts';
import type { Logger } from './logger.ts';
import { operations as controlPlaneOperations } from '../../generated/control-plane/operations.gen.ts';
import { operations as agentServerOperations } from '../../generated/agent-server/operations.gen.ts';
import { methods as a2aMethods } from '../../generated/a2a/methods.gen.ts';
import { loadDocument as loadControlPlane } from '../../generated/control-plane/document.gen.js';
import { loadDocument as loadAgentServer } from '../../generated/agent-server/document.gen.js';
import { loadDocument as loadA2A } from '../../generated/a2a/document.gen.js';
import * as cpParams from '../../generated/control-plane/params.validators.gen.js';
import * as cpBody from '../../generated/control-plane/body.validators.gen.js';
import * as asParams from '../../generated/agent-server/params.validators.gen.js';
import * as asBody from '../../generated/agent-server/body.validators.gen.js';
import * as a2aParams from '../../generated/a2a/params.validators.gen.js';
import { serializers as cpSerializers } from '../../generated/control-plane/reply.serializers.gen.js';
import { serializers as asSerializers } from '../../generated/agent-server/reply.serializers.gen.js';

export type { ValidatorTable } from './contract.ts';

export interface ApiDocument {
  key: 'control-plane' | 'agent-server';
  document: Record<string, any>;
  operations: readonly OperationSpec[];
  params: ValidatorTable;
  body: ValidatorTable;
  /** The JSON replies' serializers, by response validator name. */
  serializers: SerializerTable;
}

export const apiDocuments: ApiDocument[] = [
  {
    key: 'control-plane',
    document: loadControlPlane(),
    operations: controlPlaneOperations,
    params: cpParams as ValidatorTable,
    body: cpBody as ValidatorTable,
    serializers: cpSerializers,
  },
  {
    key: 'agent-server',
    document: loadAgentServer(),
    operations: agentServerOperations,
    params: asParams as ValidatorTable,
    body: asBody as ValidatorTable,
    serializers: asSerializers,
  },
];

export const rpcDocument = {
  key: 'a2a' as const,
  document: loadA2A(),
  methods: a2aMethods as readonly MethodSpec[],
  params: a2aParams as ValidatorTable,
};

/** The dispatcher of the OpenRPC document's methods; results are checked when `validateResults`. */
export async function rpcDispatcher<Ctx extends RpcContext>(
  handlers: Readonly<Record<string, RpcMethodHandler<Ctx>>>,
  options: { validateResults: boolean; log: Logger; maxDepth?: number },
): Promise<JsonRpcDispatcher<Ctx>> {
  return new JsonRpcDispatcher<Ctx>({
    maxDepth: options.maxDepth,
    methods: rpcDocument.methods,
    params: rpcDocument.params,
    handlers,
    results: options.validateResults ? (await loadResponseValidators()).rpc : undefined,
    onResultViolation: (method, issues) => options.log.error('JSON-RPC result violates the spec', { method, issues }),
  });
}

/** Response validators are only needed when checking replies (tests, AGENTPLANE_VALIDATE_RESPONSES). */
export async function loadResponseValidators(): Promise<{ http: ValidatorTable; rpc: ValidatorTable }> {
  const [cp, as, a2a] = await Promise.all([
    import('../../generated/control-plane/response.validators.gen.js'),
    import('../../generated/agent-server/response.validators.gen.js'),
    import('../../generated/a2a/response.validators.gen.js'),
  ]);
  return { http: { ...(cp as ValidatorTable), ...(as as ValidatorTable) }, rpc: a2a as ValidatorTable };
}
