import { z } from 'zod';
import { type AnyTool, buildTool, EfferentError } from '../core/index.ts';
import type { McpConnection } from './connection.ts';
import { wrapUntrusted } from './mcp-tool.ts';

/** Finds the connection a resource call names; the error lists the servers there are. */
function pick(connections: () => readonly McpConnection[], server: string): McpConnection {
  const found = connections().find((connection) => connection.name === server);
  if (found) return found;
  const names = connections().map((connection) => connection.name);
  throw new EfferentError(
    'validation_failed',
    `There is no MCP server "${server}". Servers: ${names.length > 0 ? names.join(', ') : 'none'}.`,
  );
}

/** `ListMcpResources` and `ReadMcpResource`: read-only, deferred until the model loads them. */
export function createResourceTools(connections: () => readonly McpConnection[]): AnyTool[] {
  const list = buildTool({
    name: 'ListMcpResources',
    inputSchema: z.strictObject({
      server: z.string().optional().describe('Only this server’s resources (default: every server).'),
    }),
    prompt:
      'Lists the resources MCP servers offer (URI, name, type), for reading with ReadMcpResource. Give server to list one server only.',
    searchHint: 'list mcp server resources uris',
    shouldDefer: true,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input, context) {
      const targets = input.server ? [pick(connections, input.server)] : [...connections()];
      const lines: string[] = [];
      for (const connection of targets) {
        try {
          const resources = await connection.listResources(context.run.abortController.signal);
          for (const resource of resources) {
            lines.push(
              JSON.stringify({
                server: connection.name,
                uri: resource.uri,
                name: resource.name,
                ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
                ...(resource.description ? { description: resource.description.slice(0, 300) } : {}),
              }),
            );
          }
        } catch (error) {
          lines.push(
            `(server ${connection.name}: ${error instanceof Error ? error.message : String(error)})`,
          );
        }
      }
      return { data: lines.length > 0 ? lines.join('\n') : 'No MCP server offers resources.' };
    },
  });
  const read = buildTool({
    name: 'ReadMcpResource',
    inputSchema: z.strictObject({
      server: z.string().describe('The MCP server name.'),
      uri: z.string().describe('The resource URI, as ListMcpResources shows it.'),
    }),
    prompt: 'Reads one resource from an MCP server by URI (see ListMcpResources).',
    searchHint: 'read mcp server resource by uri',
    shouldDefer: true,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input, context) {
      const connection = pick(connections, input.server);
      const result = await connection.readResource(input.uri, context.run.abortController.signal);
      const parts = result.contents.map((item) => {
        if ('text' in item && typeof item.text === 'string') return `[resource ${item.uri}]\n${item.text}`;
        const blob = 'blob' in item && typeof item.blob === 'string' ? item.blob : '';
        return `[resource ${item.uri} (${item.mimeType ?? 'application/octet-stream'}), ${Math.floor((blob.length * 3) / 4)} bytes of binary data]`;
      });
      return { data: wrapUntrusted(connection.name, parts.join('\n')) };
    },
  });
  return [list, read];
}
