// `agent.getTree`: the graphs of the thread's latest protocol run — the root and each
// subgraph namespace seen in its events — with their lifecycle status, nested by namespace.
import { normalizeNamespaceSegment, isPrefixMatch } from '@langchain/langgraph/stream';
import type { Namespace, ProtocolEvent } from './events.ts';

export interface AgentTreeNode {
  namespace: Namespace;
  status: string;
  graph_name: string;
  children?: AgentTreeNode[];
}

export function agentTree(rootGraph: string, events: ProtocolEvent[]): AgentTreeNode {
  const nodes = new Map<string, { namespace: Namespace; status: string; graphName: string }>();
  const key = (ns: Namespace) => ns.join('\0');
  nodes.set('', { namespace: [], status: 'started', graphName: rootGraph });
  for (const event of events) {
    const ns = event.params.namespace;
    // every prefix of a namespace seen is a graph of the tree
    for (let length = 1; length <= ns.length; length += 1) {
      const partial = ns.slice(0, length);
      if (!nodes.has(key(partial))) nodes.set(key(partial), { namespace: partial, status: 'started', graphName: normalizeNamespaceSegment(partial.at(-1)!) });
    }
    if (event.method === 'lifecycle') {
      const data = event.params.data as { event?: string; graph_name?: string };
      const node = nodes.get(key(ns))!;
      if (typeof data.event === 'string') node.status = data.event;
      if (typeof data.graph_name === 'string') node.graphName = data.graph_name;
    }
  }
  const build = (namespace: Namespace): AgentTreeNode => {
    const node = nodes.get(key(namespace))!;
    const children = [...nodes.values()]
      .filter((candidate) => candidate.namespace.length === namespace.length + 1 && isPrefixMatch(candidate.namespace, namespace))
      .sort((a, b) => JSON.stringify(a.namespace).localeCompare(JSON.stringify(b.namespace)))
      .map((child) => build(child.namespace));
    return { namespace: node.namespace, status: node.status, graph_name: node.graphName, ...(children.length ? { children } : {}) };
  };
  return build([]);
}
