// The A2A task failures the task service returns, as domain outcomes; the A2A handlers turn
// their kinds into the A2A 0.3.0 JSON-RPC codes (src/handlers/a2a/failures.ts).
import { fail } from '../outcome.ts';

export const taskNotFound = (id: string) => fail('not_found', `Task not found: ${id}`, { taskId: id });

export const taskNotCancelable = (id: string, state: string) =>
  fail('conflict', `Task cannot be canceled: task ${id} is already ${state}`, { taskId: id, state });

export const taskEnded = (id: string, state: string) =>
  fail('conflict', `Task ${id} is already ${state}: it takes no more messages. Send the message with the task's contextId only to start a new task in the same context.`, {
    taskId: id,
    state,
  });
