declare module 'virtual:spec' {
  /** "METHOD /path" of every operation of both APIs, as in the spec. */
  export const operations: string[];
  /** components.schemas of the control-plane document. */
  export const controlPlaneSchemas: Record<string, import('./schemaForm').JsonSchema>;
}
