// Coordination for one server on its own (embedded) store: nothing is shared, so locks are
// held in process, this server always leads, and messages go round an in-process emitter.
import { EventEmitter } from 'node:events';
import { KeyedLock } from '../../domain/keyedLock.ts';
import type { Coordination, Singleton } from '../../domain/ports/coordination.ts';

/** One server on its own store: locks in process, always the leader, messages in process. */
export class LocalCoordination implements Coordination {
  readonly shared = false;
  readonly replicaId = 'local';
  private readonly locks = new KeyedLock();
  private readonly bus = new EventEmitter().setMaxListeners(0);

  serialize<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.locks.run(key, work);
  }

  singleton(_name: string, lead: (signal: AbortSignal) => Promise<void> | void): Singleton {
    const controller = new AbortController();
    const led = Promise.resolve()
      .then(() => lead(controller.signal))
      .catch(() => undefined);
    return {
      stop: async () => {
        controller.abort();
        await led;
      },
    };
  }

  async notify(channel: string, payload: string): Promise<void> {
    // delivered after the caller's current step, as a message from the database would be
    queueMicrotask(() => this.bus.emit(channel, payload));
  }

  listen(channel: string, handler: (payload: string) => void): () => void {
    this.bus.on(channel, handler);
    return () => this.bus.off(channel, handler);
  }

  async close(): Promise<void> {
    this.bus.removeAllListeners();
  }
}
