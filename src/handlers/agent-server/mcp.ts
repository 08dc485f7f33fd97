// POST /mcp: the MCP server of the assistants, over streamable HTTP in stateless mode with
// JSON replies. The official SDK does the protocol (initialize, tools/list, tools/call,
// errors); each request gets a fresh server and transport, so no session state exists.
import type { McpReply } from '../../../generated/agent-server/types.gen.ts';
import { callAssistantTool, listAssistantTools, type ToolHost } from '../../domain/mcp/assistantTools.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AgentServerAreaHandlers } from './area.ts';

const SERVER_INFO = { name: 'agentplane', version: '0.1.0' };

/** The SDK, loaded on the first MCP request rather than at start (it brings zod and its JSON Schema converter). */
let sdk:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/index.js'),
        typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
        typeof import('@modelcontextprotocol/sdk/types.js'),
      ]
    >
  | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]));

/** The tools are the assistants the caller sees (see owner.ts), run on threads of the caller's. */
export function mcpHandlers(hostFor: (ctx: RequestContext) => ToolHost): Pick<AgentServerAreaHandlers, 'mcpRpc'> {
  return {
    async mcpRpc({ body }, ctx) {
      const host = hostFor(ctx);
      const [{ Server }, { WebStandardStreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await loadSdk();
      const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: (await listAssistantTools(host)).map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
      }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const tool = (await listAssistantTools(host)).find((t) => t.name === request.params.name);
        if (!tool) return { isError: true, content: [{ type: 'text' as const, text: `Unknown tool: ${request.params.name}` }] };
        const result = await callAssistantTool(host, tool, request.params.arguments ?? {}, ctx.signal);
        if (!result.ok) return { isError: true, content: [{ type: 'text' as const, text: result.message }] };
        return { content: [{ type: 'text' as const, text: result.text }], structuredContent: result.output };
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        const request = new Request('http://agentplane.local/mcp', {
          method: 'POST',
          // the client's own Accept is not required: replies here are always JSON
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(body),
        });
        const response = await transport.handleRequest(request, { parsedBody: body });
        const text = await response.text();
        if (response.status === 202 || !text) return { status: 202 };
        return { status: response.status === 200 ? 200 : 400, body: JSON.parse(text) as McpReply };
      } finally {
        await server.close();
      }
    },
  };
}
