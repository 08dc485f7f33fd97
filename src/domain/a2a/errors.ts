// The A2A 0.3.0 error catalogue used by the task service; the handlers return these as
// JSON-RPC error objects unchanged.
import type { RpcError } from '../../../generated/runtime-types.gen.ts';

export type A2AError = RpcError;

export const A2AErrors = {
  invalidParams: (message: string, data?: unknown): A2AError => ({ code: -32602, message, ...(data === undefined ? {} : { data }) }),
  internal: (message: string): A2AError => ({ code: -32603, message }),
  taskNotFound: (id: string): A2AError => ({ code: -32001, message: `Task not found: ${id}`, data: { taskId: id } }),
  taskNotCancelable: (id: string, state: string): A2AError => ({
    code: -32002,
    message: `Task cannot be canceled: task ${id} is already ${state}`,
    data: { taskId: id, state },
  }),
  pushNotSupported: (): A2AError => ({ code: -32003, message: 'Push Notification is not supported' }),
  contentType: (message: string): A2AError => ({ code: -32005, message }),
};
