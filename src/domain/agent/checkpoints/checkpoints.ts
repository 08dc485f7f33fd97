// How requests name a checkpoint: runs and state updates accept `checkpoint` (an object
// with `checkpoint_id`, `checkpoint_ns`, ...) or the older `checkpoint_id`.

export interface CheckpointRef {
  checkpoint_id?: string;
  checkpoint_ns?: string;
}

/** The checkpoint a run or update starts from, or undefined for the thread's latest. */
export function forkCheckpointId(body: { checkpoint?: unknown; checkpoint_id?: unknown }): string | undefined {
  const fromObject = (body.checkpoint as CheckpointRef | null | undefined)?.checkpoint_id;
  const id = fromObject ?? body.checkpoint_id;
  return typeof id === 'string' && id ? id : undefined;
}
