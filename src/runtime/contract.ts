// The shapes of the generated contract: what scripts/codegen writes into generated/ and
// what the runtime reads from it (operation and method tables, validators, replies). Hand-
// written, imported by both sides, so a change here is reviewed like any other code.

/** A generated (ajv standalone) validator. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ValidationIssue[] | null;
}

/** Writes a reply's body as JSON text, as its response schema says. */
export type Serialize = (body: unknown) => string;

/** Reply serializers' factories, by response validator name: each builds its reply's serializer. */
export type SerializerTable = Readonly<Record<string, () => Serialize>>;

/** Generated serializers (reply.serializers.gen.js): each reply's factory by response validator name, and each factory's module. */
export interface SerializerModules {
  modules: Readonly<Record<string, () => Promise<{ default: () => Serialize }>>>;
  serializers: Readonly<Record<string, string>>;
}

/** Each validator's module of a split file (`*.validators.lazy.gen.js`), by name: its import resolves to the validator. */
export type ValidatorModules = Readonly<Record<string, () => Promise<Validator>>>;

/** Validators of one generated file, by name. */
export type ValidatorTable = Readonly<Record<string, Validator>>;

export interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, any>;
  message?: string;
}

/** One HTTP operation, as the router, the pipeline and the mock read it. */
/** The media type of an HTML form's body (OperationSpec.body.form). */
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

export interface OperationSpec {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  tags: string[];
  security: Record<string, string[]>[];
  /**
   * Under the project's custom auth (`x-auth`): open to anybody, the caller authenticated only,
   * or also authorized by the handlers of these `resource:action` events, asked in this order.
   * Absent: custom auth does not apply.
   */
  auth?: 'public' | 'authenticated' | AuthEvent[];
  /** The JSON-RPC dispatcher this operation carries (`x-agentplane-jsonrpc`). */
  jsonrpc?: string;
  /**
   * Agent discovery (`x-agentplane-discovery`): credentials are optional whatever auth is in
   * force, a valid one still naming the caller's tenant (an A2A card says how to authenticate).
   */
  discovery?: boolean;
  /**
   * The shape of the failures the runtime answers for this operation itself — bad input, a
   * wrong media type, authentication, limits, an unknown path under it (`x-agentplane-errors`):
   * a google.rpc.Status (AIP-193) in this media type, its ErrorInfo in this domain; input that
   * cannot be read or is invalid carries an ErrorInfo with `invalidReason` when given. Absent:
   * `{detail}` (FastAPI's).
   */
  errors?: { shape: 'google.rpc.Status'; mediaType: string; domain: string; invalidReason?: string };
  params: {
    path?: { validator: string; type: string };
    query?: { validator: string; type: string };
    headers?: { validator: string; type: string };
    headerNames: string[];
    queryNames: string[];
  };
  /**
   * `raw`: the handler gets the body as text (a JSON-RPC envelope is parsed by its dispatcher).
   * `form`: the body is `application/x-www-form-urlencoded` (an HTML form's POST), read as its
   * fields (a field given twice: a list) and checked against the schema as a JSON body is.
   */
  body?: { required: boolean; contentTypes: string[]; validator: string; type: string; raw?: boolean; form?: boolean };
  responses: Record<string, ResponseSpec>;
}

/** The event of @langchain/langgraph-sdk/auth an operation asks the project's handler about. */
export interface AuthEvent {
  resource: 'threads' | 'assistants' | 'crons' | 'store';
  action: string;
}

export interface ResponseSpec {
  /** The media type of the body (application/json preferred when several are documented). */
  contentType: string | null;
  validator: string | null;
  type: string | null;
  /** Documented response headers; a handler must send the required ones. */
  headers?: { name: string; required: boolean }[];
  /** A JSON response that may instead be a text/event-stream for the same status. */
  stream?: boolean;
}

/** One JSON-RPC method of an OpenRPC document. */
export interface MethodSpec {
  name: string;
  summary: string;
  streaming: boolean;
  validator: string;
  errors: { code: number; message: string }[];
}

/** A request body handed over unparsed (operations with a `raw` body). */
export interface RawBody {
  text: string;
  /** The request's Content-Type, when it sent one. */
  contentType: string | undefined;
}

/** One Server-Sent Event; `data` is serialised as JSON unless it is a string. */
export interface SseEvent {
  event?: string;
  id?: string;
  data: unknown;
  /**
   * The data's text as UTF-8 bytes, in pieces, when its producer holds it as bytes (a protocol
   * event's log entry): the writers copy them into what they send, and keep no frame of the
   * event (issue 87). Undefined: the writers read `data`.
   */
  dataBytes?(): readonly Uint8Array[] | undefined;
}

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}
export type RpcOutcome<T> = { result: T } | { error: RpcError };
export type RpcStreamOutcome<T> = { stream: AsyncIterable<RpcOutcome<T>> } | { error: RpcError };
