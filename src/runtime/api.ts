// The generated contract, loaded once: operation tables, bundled documents and validators.
import type { RpcContext } from './context.ts';
import type { MethodSpec, OperationSpec, SerializerTable, ValidatorTable } from './contract.ts';
import { JsonRpcDispatcher, type DispatcherOptions, type RpcMethodHandler } from './transports/jsonrpc.ts';
import type { Logger } from './logging/logger.ts';
import { operations as controlPlaneOperations } from '../../generated/control-plane/operations.gen.ts';
import { operations as agentServerOperations } from '../../generated/agent-server/operations.gen.ts';
import { methods as a2aMethods } from '../../generated/a2a/methods.gen.ts';
import { methods as a2aV1Methods } from '../../generated/a2a-v1/methods.gen.ts';
import * as controlPlaneDocument from '../../generated/control-plane/document.gen.js';
import * as agentServerDocument from '../../generated/agent-server/document.gen.js';
import { loadDocument as loadA2A } from '../../generated/a2a/document.gen.js';
import { loadDocument as loadA2AV1 } from '../../generated/a2a-v1/document.gen.js';
import * as asParams from '../../generated/agent-server/params.validators.gen.js';
import * as asBody from '../../generated/agent-server/body.validators.gen.js';
import * as a2aParams from '../../generated/a2a/params.validators.gen.js';
import * as a2aV1Params from '../../generated/a2a-v1/params.validators.gen.js';
import { serializers as asSerializers } from '../../generated/agent-server/reply.serializers.gen.js';

export type { ValidatorTable } from './contract.ts';

export interface ApiDocument {
  key: 'control-plane' | 'agent-server';
  /** The whole document, built when first read (the mock and the tests read it; serving does not). */
  readonly document: Record<string, any>;
  /** Its components.securitySchemes, which the pipeline binds each operation's credentials by. */
  securitySchemes: Record<string, any>;
  operations: readonly OperationSpec[];
  /** params, body and serializers: read only once `whenTables()` says they loaded, where it is present (see controlPlaneTables). */
  params: ValidatorTable;
  body: ValidatorTable;
  /** The JSON replies' serializers, by response validator name. */
  serializers: SerializerTable;
  /**
   * For a document whose tables load with its first request (the control plane's): undefined
   * once params, body and serializers can be read, else their load, started by the call.
   * Absent where they load with the server.
   */
  whenTables?(): Promise<void> | undefined;
}

/** A document's object, built once on first read: building the two OpenAPI documents cost every start ~20 ms. */
function once(load: () => Record<string, any>): () => Record<string, any> {
  let built: Record<string, any> | undefined;
  return () => (built ??= load());
}
const controlPlaneObject = once(controlPlaneDocument.loadDocument);
const agentServerObject = once(agentServerDocument.loadDocument);

interface Tables {
  params: ValidatorTable;
  body: ValidatorTable;
  serializers: SerializerTable;
}

/**
 * The control plane's request validators and reply serializers, ~1 MB of generated code that
 * cost ~35 ms of the main thread to load: imported by the first control-plane request (the
 * pipeline awaits whenTables() before it admits one), not by every start before the agent
 * server answers. The agent server's tables load with the server: its first request is the
 * one a start is timed to.
 */
let controlPlaneTables: Tables | undefined;
let controlPlaneLoad: Promise<void> | undefined;
function loadControlPlaneTables(): Promise<void> | undefined {
  if (controlPlaneTables) return undefined;
  return (controlPlaneLoad ??= Promise.all([
    import('../../generated/control-plane/params.validators.gen.js'),
    import('../../generated/control-plane/body.validators.gen.js'),
    import('../../generated/control-plane/reply.serializers.gen.js'),
  ]).then(
    ([params, body, replies]) => {
      controlPlaneTables = { params: params as ValidatorTable, body: body as ValidatorTable, serializers: replies.serializers };
    },
    (err: unknown) => {
      // a later request tries again, not the same failure forever
      controlPlaneLoad = undefined;
      throw err;
    },
  ));
}
function loadedControlPlaneTables(): Tables {
  if (!controlPlaneTables) throw new Error("the control plane's tables were read before they loaded (ApiDocument.whenTables)");
  return controlPlaneTables;
}

export const apiDocuments: ApiDocument[] = [
  {
    key: 'control-plane',
    get document() {
      return controlPlaneObject();
    },
    securitySchemes: controlPlaneDocument.securitySchemes,
    operations: controlPlaneOperations,
    get params() {
      return loadedControlPlaneTables().params;
    },
    get body() {
      return loadedControlPlaneTables().body;
    },
    get serializers() {
      return loadedControlPlaneTables().serializers;
    },
    whenTables: loadControlPlaneTables,
  },
  {
    key: 'agent-server',
    get document() {
      return agentServerObject();
    },
    securitySchemes: agentServerDocument.securitySchemes,
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

/** A2A v1.0's JSON-RPC methods, served on the same endpoint to requests that ask for 1.0. */
export const rpcDocumentV1 = {
  key: 'a2a-v1' as const,
  document: loadA2AV1(),
  methods: a2aV1Methods as readonly MethodSpec[],
  params: a2aV1Params as ValidatorTable,
};

type RpcDocumentKey = typeof rpcDocument.key | typeof rpcDocumentV1.key;

/** The dispatcher of an OpenRPC document's methods (default the A2A 0.3 one); results are checked when `validateResults`. */
export async function rpcDispatcher<Ctx extends RpcContext>(
  handlers: Readonly<Record<string, RpcMethodHandler<Ctx>>>,
  options: { validateResults: boolean; log: Logger; maxDepth?: number },
  document: RpcDocumentKey = 'a2a',
  framing: Pick<DispatcherOptions<Ctx>, 'invalidParams' | 'streamErrorsAsJson'> = {},
): Promise<JsonRpcDispatcher<Ctx>> {
  const doc = document === 'a2a' ? rpcDocument : rpcDocumentV1;
  const validators = options.validateResults ? await loadResponseValidators() : undefined;
  return new JsonRpcDispatcher<Ctx>({
    maxDepth: options.maxDepth,
    methods: doc.methods,
    params: doc.params,
    handlers,
    results: validators ? (document === 'a2a' ? validators.rpc : validators.rpcV1) : undefined,
    onResultViolation: (method, issues) => options.log.error('JSON-RPC result violates the spec', { method, issues }),
    ...framing,
  });
}

/** Response validators are only needed when checking replies (tests, AGENTPLANE_VALIDATE_RESPONSES). */
export async function loadResponseValidators(): Promise<{ http: ValidatorTable; rpc: ValidatorTable; rpcV1: ValidatorTable }> {
  const [cp, as, a2a, a2aV1] = await Promise.all([
    import('../../generated/control-plane/response.validators.gen.js'),
    import('../../generated/agent-server/response.validators.gen.js'),
    import('../../generated/a2a/response.validators.gen.js'),
    import('../../generated/a2a-v1/response.validators.gen.js'),
  ]);
  return { http: { ...(cp as ValidatorTable), ...(as as ValidatorTable) }, rpc: a2a as ValidatorTable, rpcV1: a2aV1 as ValidatorTable };
}
