// The A2A push notification configs in a collection of the store, one record per task and
// config id, indexed by task.
import type { Collection, Store } from '../../domain/ports/store.ts';
import type { PushConfig, PushConfigsRepository } from '../../domain/ports/pushConfigsRepository.ts';

export class CollectionPushConfigs implements PushConfigsRepository {
  private readonly configs: Collection<PushConfig>;

  constructor(store: Store) {
    this.configs = store.collection<PushConfig>('a2a_push_configs', { indexes: ['taskId'] });
  }

  private static key = (taskId: string, id: string) => `${taskId}/${id}`;

  get(taskId: string, id: string): Promise<PushConfig | undefined> {
    return this.configs.get(CollectionPushConfigs.key(taskId, id));
  }

  list(taskId: string): Promise<PushConfig[]> {
    return this.configs.list({ where: { taskId } });
  }

  put(config: PushConfig): Promise<void> {
    return this.configs.put(CollectionPushConfigs.key(config.taskId, config.id), config);
  }

  delete(taskId: string, id: string): Promise<boolean> {
    return this.configs.delete(CollectionPushConfigs.key(taskId, id));
  }
}
