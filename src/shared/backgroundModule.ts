// Something that runs beside the HTTP server (a worker pool, a deployer, a scheduler). Named
// here, outside every layer, because the domain builds such modules and the runtime starts
// and stops them, and neither may import the other.

export interface BackgroundModule {
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}
