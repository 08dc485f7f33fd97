// The protocol's command and reply envelopes, apart from the commands themselves so that the
// agent service can name them without importing the code that calls it back.
export interface ProtocolCommand {
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

export interface ResponseMeta {
  thread_id: string;
  applied_through_seq: number;
}

export type CommandReply =
  | { type: 'success'; id: number; result: Record<string, unknown>; meta: ResponseMeta }
  | { type: 'error'; id: number | null; error: string; message: string; meta?: ResponseMeta };
