// Reading a graph's schemas from its module's TypeScript types (as upstream's static
// extraction) takes a compiler and a thread of its own, so it is an adapter's
// (adapters/run-workers/staticSchemas.ts); the domain asks through this port. Until the
// composition root hands one in, no types are read and a graph's schemas come from its
// declarations or its channels.
import type { DeclaredSchemas } from '../agent/graphs/declaredSchemas.ts';

/** A graph's schemas read from its types, and its subgraphs' by namespace (`child`, `child|grandchild`). */
export interface TypedSchemas extends DeclaredSchemas {
  subgraphs?: Record<string, DeclaredSchemas>;
}

export interface GraphTypeReader {
  /** The schemas of the module's export, or undefined when its types do not tell them. */
  read(file: string | undefined, exportName: string | undefined): Promise<TypedSchemas | undefined>;
  /** Reads these graphs' types in the background; resolves once that is over. */
  warm(graphs: { source?: string; exportName?: string }[]): Promise<void>;
}

let installed: GraphTypeReader | undefined;

/** Installs the process's type reader (the composition root does, at start). */
export function useGraphTypeReader(reader: GraphTypeReader): void {
  installed = reader;
}

export function graphTypeReader(): GraphTypeReader | undefined {
  return installed;
}
