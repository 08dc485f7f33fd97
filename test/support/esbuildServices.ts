// The esbuild service processes this process's main thread has started and not ended (esbuild's
// JavaScript API spawns `esbuild --service=… --ping` on its first build), read from /proc. Only
// the main thread's children: tsx's hooks thread, once registered, keeps a service of its own.
import fs from 'node:fs';

export function esbuildServices(): number[] {
  const children = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
  return children
    .split(' ')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return /esbuild\0--service=/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false; // the child ended meanwhile
      }
    });
}

/** The services left once those stopped have exited (a stopped service is sent SIGTERM and exits a moment later): polled for up to 5 s. */
export async function esbuildServicesLeft(): Promise<number[]> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (esbuildServices().length === 0) return [];
  }
  return esbuildServices();
}
