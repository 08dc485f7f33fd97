// Where the test processes' preload is, as an absolute URL: a child started in another
// working directory (a project's folder) finds it too.
export const PRELOAD = new URL('./preload.mjs', import.meta.url).href;
