// The generated contract, loaded once: operation tables, bundled documents and validators.
import type { RpcContext } from './context.ts';
import type { MethodSpec, OperationSpec, Serialize, SerializerModules, SerializerTable, Validator, ValidatorTable } from './contract.ts';
import { JsonRpcDispatcher, type DispatcherOptions, type RpcMethodHandler } from './transports/jsonrpc.ts';
import type { Logger } from './logging/logger.ts';
import { operations as controlPlaneOperations, securitySchemes as controlPlaneSchemes } from '../../generated/control-plane/operations.gen.ts';
import { operations as agentServerOperations, securitySchemes as agentServerSchemes } from '../../generated/agent-server/operations.gen.ts';
import { methods as a2aMethods } from '../../generated/a2a/methods.gen.ts';
import { methods as a2aV1Methods } from '../../generated/a2a-v1/methods.gen.ts';
import { loadDocument as loadA2A } from '../../generated/a2a/document.gen.js';
import { loadDocument as loadA2AV1 } from '../../generated/a2a-v1/document.gen.js';
import { modules as asParamModules } from '../../generated/agent-server/params.validators.lazy.gen.js';
import * as a2aParams from '../../generated/a2a/params.validators.gen.js';
import * as a2aV1Params from '../../generated/a2a-v1/params.validators.gen.js';
import * as asReplies from '../../generated/agent-server/reply.serializers.gen.js';

export type { ValidatorTable } from './contract.ts';

export interface ApiDocument {
  key: 'control-plane' | 'agent-server';
  /**
   * The whole document, built when first read, once `loadApiDocuments()` has loaded its module
   * (the mock, the console and the tests read it; serving does not).
   */
  readonly document: Record<string, any>;
  /** Its components.securitySchemes, which the pipeline binds each operation's credentials by. */
  securitySchemes: Record<string, any>;
  operations: readonly OperationSpec[];
  /** params, body and serializers: an operation's read only once `tablesLoaded` says so, where it is present (see lazyTable, paramsByOperation). */
  params: ValidatorTable;
  body: ValidatorTable;
  /** The JSON replies' serializers, by response validator name: an operation's are there once `tablesLoaded` says so. */
  serializers: SerializerTable;
  /**
   * Where some tables load with the first request that reads them (all of the control plane's,
   * the agent server's request bodies, each operation's reply serializers): whether those
   * `operation` reads have loaded. Absent where every table loads with the server.
   */
  tablesLoaded?(operation: OperationSpec): boolean;
  /** undefined once `operation`'s tables can be read, else their load, started by the call. */
  whenTables?(operation: OperationSpec): Promise<void> | undefined;
}

/** A document's object, built once on first read: building the two OpenAPI documents cost every start ~20 ms. */
function once(load: () => Record<string, any>): () => Record<string, any> {
  let built: Record<string, any> | undefined;
  return () => (built ??= load());
}

/**
 * The two OpenAPI documents' modules (~650 KB of code), imported by what reads a whole document
 * (the mock, the console, the tests) and never by a start or a request: parsing them cost every
 * start ~30 ms of the main thread and ~950 fresh pages. A start binds each operation's
 * credentials by the security schemes operations.gen.ts carries.
 */
let openApiObjects: Record<ApiDocument['key'], () => Record<string, any>> | undefined;

/** Loads the OpenAPI documents' modules, so that `ApiDocument.document` can be read. */
export async function loadApiDocuments(): Promise<void> {
  if (openApiObjects) return;
  const [controlPlane, agentServer] = await Promise.all([
    import('../../generated/control-plane/document.gen.js'),
    import('../../generated/agent-server/document.gen.js'),
  ]);
  openApiObjects ??= { 'control-plane': once(controlPlane.loadDocument), 'agent-server': once(agentServer.loadDocument) };
}

function openApiObject(key: ApiDocument['key']): Record<string, any> {
  if (!openApiObjects) throw new Error(`the ${key} document was read before loadApiDocuments() loaded it`);
  return openApiObjects[key]();
}

/**
 * Generated tables imported by the first request that reads them, not by every start before
 * the agent server answers its first request (the one a start is timed to): the control
 * plane's request validators and reply serializers (~1 MB, ~35 ms of the main thread) and the
 * agent server's request body validators (~0.5 MB, ~14 ms; a start's run-path warm-up loads
 * them soon after it answers). The pipeline awaits ApiDocument.whenTables before it admits
 * such a request, so its replies, refusals too, are written by the document's own tables.
 */
function lazyTable<T>(what: string, load: () => Promise<T>) {
  let table: T | undefined;
  let loading: Promise<void> | undefined;
  return {
    loaded: () => table !== undefined,
    load(): Promise<void> | undefined {
      if (table !== undefined) return undefined;
      return (loading ??= load().then(
        (loaded) => {
          table = loaded;
        },
        (err: unknown) => {
          // a later request tries again, not the same failure forever
          loading = undefined;
          throw err;
        },
      ));
    },
    get(): T {
      if (table === undefined) throw new Error(`${what} were read before they loaded (ApiDocument.whenTables)`);
      return table;
    },
  };
}

/**
 * A document's reply serializers, each factory's module imported with the first request of an
 * operation that writes it (ApiDocument.whenTables), not with the server: the agent server's
 * are ~890 KB of generated code, ~45 ms of a start's main thread and ~1,200 fresh pages, of
 * which a start's first requests write a few. `table` holds the loaded ones, by reply name.
 */
function serializersByOperation(generated: () => SerializerModules) {
  const table: Record<string, () => Serialize> = {};
  const factories = new Map<string, Promise<() => Serialize>>();
  const namesOf = (operation: OperationSpec) =>
    Object.values(operation.responses)
      .map((r) => r.validator)
      .filter((name): name is string => typeof name === 'string' && name in generated().serializers);
  const factory = (name: string): Promise<() => Serialize> => {
    const { modules, serializers } = generated();
    const module = serializers[name];
    let loading = factories.get(module);
    if (!loading) {
      loading = modules[module]().then(
        (loaded) => loaded.default,
        (err: unknown) => {
          // a later request tries again, not the same failure forever
          factories.delete(module);
          throw err;
        },
      );
      factories.set(module, loading);
    }
    return loading;
  };
  return {
    table: table as SerializerTable,
    loaded: (operation: OperationSpec) => namesOf(operation).every((name) => name in table),
    load(operation: OperationSpec): Promise<void> | undefined {
      const missing = namesOf(operation).filter((name) => !(name in table));
      if (!missing.length) return undefined;
      return Promise.all(missing.map((name) => factory(name).then((build) => void (table[name] = build)))).then(() => undefined);
    },
  };
}

/**
 * A document's params validators, each one's module imported with the first request of an
 * operation that reads it (ApiDocument.whenTables), not with the server: the agent server's
 * are ~350 KB of generated code, of which a start's first requests read one or two (`/ok`'s
 * query). `table` holds the loaded ones, by validator name.
 */
function paramsByOperation(modules: Readonly<Record<string, () => Promise<Validator>>>) {
  const table: Record<string, Validator> = {};
  const loading = new Map<string, Promise<void>>();
  const namesOf = (operation: OperationSpec) =>
    [operation.params.path, operation.params.query, operation.params.headers].flatMap((p) => (p && p.validator in modules ? [p.validator] : []));
  const one = (name: string): Promise<void> => {
    let load = loading.get(name);
    if (!load) {
      load = modules[name]().then(
        (validate) => void (table[name] = validate),
        (err: unknown) => {
          // a later request tries again, not the same failure forever
          loading.delete(name);
          throw err;
        },
      );
      loading.set(name, load);
    }
    return load;
  };
  return {
    table: table as ValidatorTable,
    loaded: (operation: OperationSpec) => namesOf(operation).every((name) => name in table),
    load(operation: OperationSpec): Promise<void> | undefined {
      const missing = namesOf(operation).filter((name) => !(name in table));
      if (!missing.length) return undefined;
      return Promise.all(missing.map(one)).then(() => undefined);
    },
  };
}

/** Both loads, or undefined where neither is needed. */
function bothLoaded(a: Promise<void> | undefined, b: Promise<void> | undefined): Promise<void> | undefined {
  if (!a) return b;
  if (!b) return a;
  return Promise.all([a, b]).then(() => undefined);
}

const controlPlaneTables = lazyTable("the control plane's tables", async () => {
  const [params, body, replies] = await Promise.all([
    import('../../generated/control-plane/params.validators.gen.js'),
    import('../../generated/control-plane/body.validators.gen.js'),
    import('../../generated/control-plane/reply.serializers.gen.js'),
  ]);
  return { params: params as ValidatorTable, body: body as ValidatorTable, replies: replies as SerializerModules };
});
const controlPlaneReplies = serializersByOperation(() => controlPlaneTables.get().replies);
const agentServerReplies = serializersByOperation(() => asReplies as SerializerModules);
const agentServerParams = paramsByOperation(asParamModules);
const agentServerBodies = lazyTable(
  "the agent server's body validators",
  async () => (await import('../../generated/agent-server/body.validators.gen.js')) as ValidatorTable,
);

export const apiDocuments: ApiDocument[] = [
  {
    key: 'control-plane',
    get document() {
      return openApiObject('control-plane');
    },
    securitySchemes: controlPlaneSchemes,
    operations: controlPlaneOperations,
    get params() {
      return controlPlaneTables.get().params;
    },
    get body() {
      return controlPlaneTables.get().body;
    },
    serializers: controlPlaneReplies.table,
    tablesLoaded: (operation) => controlPlaneTables.loaded() && controlPlaneReplies.loaded(operation),
    whenTables: (operation) => {
      const tables = controlPlaneTables.load();
      return tables ? tables.then(() => controlPlaneReplies.load(operation)) : controlPlaneReplies.load(operation);
    },
  },
  {
    key: 'agent-server',
    get document() {
      return openApiObject('agent-server');
    },
    securitySchemes: agentServerSchemes,
    operations: agentServerOperations,
    params: agentServerParams.table,
    get body() {
      return agentServerBodies.get();
    },
    serializers: agentServerReplies.table,
    tablesLoaded: (operation) => agentServerParams.loaded(operation) && (!operation.body || agentServerBodies.loaded()) && agentServerReplies.loaded(operation),
    whenTables: (operation) =>
      bothLoaded(agentServerParams.load(operation), bothLoaded(operation.body ? agentServerBodies.load() : undefined, agentServerReplies.load(operation))),
  },
];

const a2aObject = once(loadA2A);
const a2aV1Object = once(loadA2AV1);

/** A2A 0.3's JSON-RPC methods; its document (read by the mock alone) is built on first read, as the OpenAPI ones: ~6 ms and ~170 fresh pages a start for both. */
export const rpcDocument = {
  key: 'a2a' as const,
  get document(): Record<string, any> {
    return a2aObject();
  },
  methods: a2aMethods as readonly MethodSpec[],
  params: a2aParams as ValidatorTable,
};

/** A2A v1.0's JSON-RPC methods, served on the same endpoint to requests that ask for 1.0. */
export const rpcDocumentV1 = {
  key: 'a2a-v1' as const,
  get document(): Record<string, any> {
    return a2aV1Object();
  },
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
