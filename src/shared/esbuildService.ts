// esbuild's service is a child process (~15 MB of RSS) that esbuild's JavaScript API starts on its
// first build and keeps for the life of the process. A server uses it at start only (serve's
// compile of the project: projectCompile.ts; the generative UI's first bundle: uiBundles.ts) and
// again on a reload, so it is stopped once no build holds it: issue 86's idle RSS of a default
// start held the service for ever. The next build starts a new one (~10-20 ms, off the request
// path: compiles and bundles are background work).
//
// Every build of the process goes through `withEsbuild`, so that the service is never stopped
// under another caller's build: stopping it fails every build in flight.
type Esbuild = typeof import('esbuild');

let holders = 0;

/** Runs `work` with esbuild's API; the service stops once no `withEsbuild` is running. */
export async function withEsbuild<T>(work: (esbuild: Esbuild) => Promise<T>): Promise<T> {
  holders += 1;
  let esbuild: Esbuild | undefined;
  try {
    esbuild = await import('esbuild');
    return await work(esbuild);
  } finally {
    holders -= 1;
    // stop() kills the process at once (no await between the count and it: a build begun meanwhile would be killed)
    if (holders === 0) void esbuild?.stop();
  }
}
