// The push notification configs of A2A tasks, kept per task: a config is named by its task
// and its id. Kept in the store's collection (adapters/embedded/collectionPushConfigs.ts).

export interface PushAuthentication {
  scheme: string;
  credentials?: string;
}

export interface PushConfig {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: PushAuthentication;
  createdAt: string;
}

export interface PushConfigsRepository {
  get(taskId: string, id: string): Promise<PushConfig | undefined>;
  /** The task's configs, in no particular order. */
  list(taskId: string): Promise<PushConfig[]>;
  /** Stores the config, replacing the task's config of the same id. */
  put(config: PushConfig): Promise<void>;
  /** Resolves false when there was none. */
  delete(taskId: string, id: string): Promise<boolean>;
}
