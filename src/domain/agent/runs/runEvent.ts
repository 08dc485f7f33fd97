// One event of a run's stream, apart from the services that produce and read them: the event
// logs (ports/runEventLog.ts) and the thread's stream carry it, and the run service's
// interface names it, so none of them imports another for it.

/** `id` is the event's position in the run's event log (for Last-Event-ID). */
export interface RunEvent {
  id: string;
  event: string; // metadata | values | updates | messages/partial | messages/complete | error | end …
  data: unknown;
}
