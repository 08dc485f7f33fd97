// A PgCoordination for adapter tests without PostgreSQL: one replica among others (never alone),
// its notices going nowhere.
import type { PgCoordination } from '../../src/adapters/postgres/pgCoordination.ts';

export const unsharedCoordination = {
  listen: () => () => {},
  notify: async () => {},
  alone: () => false,
  writeAlone: <T>(write: (alone: boolean) => Promise<T>) => write(false),
} as unknown as PgCoordination;
