// The graph every peer serves for the run figures (the LangGraph echo): its assistant id, named
// once for the servers that serve it (graph.ts) and the figures that read their rounds (figures.ts).
export const SHARED_GRAPH = 'echo_graph';
