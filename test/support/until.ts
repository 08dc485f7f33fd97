// Waiting for a condition instead of for a guessed time: polls until the check gives a value
// (which it returns) and fails with what it waited for once the time is up. Generous by
// default, since test machines are loaded; a passing test waits only as long as it must.
import { setTimeout as sleep } from 'node:timers/promises';

export async function until<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
