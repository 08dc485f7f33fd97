// The repositories and named queries a backend answers itself (PostgreSQL in SQL, over its
// tables' columns and indexes). An area whose entry is absent is kept in its collection of the
// embedded store (adapters/embedded/), which the composition root builds. (The runs are the
// run backend's: ports/runStore.ts.)
import type { AssistantsRepository } from './assistantsRepository.ts';
import type { CronsRepository } from './cronsRepository.ts';
import type { DeploymentsRepository } from './controlPlaneRepository.ts';
import type { ThreadsRepository } from './threadsRepository.ts';
import type { WebhookOutbox } from './webhookOutbox.ts';

export interface BackendQueries {
  threads?: ThreadsRepository;
  assistants?: AssistantsRepository;
  crons?: CronsRepository;
  deployments?: DeploymentsRepository;
  webhookOutbox?: WebhookOutbox;
}
