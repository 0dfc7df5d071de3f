import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  type AnyTool,
  buildTool,
  createInputValidator,
  EfferentError,
  type ImageBlock,
  type ImageMediaType,
  type TextBlock,
  type ToolProgress,
  type ToolResultBlock,
} from '../core/index.ts';
import type { McpCallProgress, McpConnection, McpToolDescriptor } from './connection.ts';

/** Descriptions and server instructions are cut here (characters). */
export const maxDescriptionLength = 2_048;
/** Above this many estimated tokens a result is reported as large. */
export const mcpOutputWarningTokens = 10_000;
/** Default `MAX_MCP_OUTPUT_TOKENS`: beyond it a result is persisted and the model gets a preview. */
export const defaultMaxMcpOutputTokens = 25_000;

/** Cuts text at `limit` characters with a note. */
export function cutText(text: string, limit = maxDescriptionLength): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… [cut at ${limit} characters]`;
}

/** Rough token count for limits (4 characters a token, as Claude Code estimates). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const imageTypes = new Set<string>(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * Marks text as coming from a server: the model must be able to tell a server's words from the
 * user's and efferent's. A closing tag inside the text is defused so output cannot end the wrapper.
 */
export function wrapUntrusted(server: string, text: string): string {
  const body = text.replace(/<\/mcp-output/gi, '<\\/mcp-output');
  return `<mcp-output server="${server}" trust="untrusted">\n${body}\n</mcp-output>`;
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}

/** Moves the pending text lines into one wrapped text part (no per-call closure on the hot path). */
function flushText(server: string, text: string[], parts: Array<TextBlock | ImageBlock>): void {
  if (text.length > 0) parts.push({ type: 'text', text: wrapUntrusted(server, text.join('\n')) });
  text.length = 0;
}

/** Forwards a server's progress for one call as the tool's progress events. */
function forwardProgress(
  onProgress: (progress: ToolProgress<McpProgress>) => void,
  toolUseId: string,
): (data: McpCallProgress) => void {
  return (data) => onProgress({ toolUseId, data: { type: 'mcp_progress', ...data } });
}

/**
 * A `tools/call` result as tool_result content: text; images inline (other image types and audio
 * as a note); embedded text resources with their URI; blobs and resource links as a line each;
 * `structuredContent` as JSON when the server sent no content for it. Text is wrapped as untrusted.
 */
export function mapCallToolResult(server: string, result: CallToolResult): Array<TextBlock | ImageBlock> {
  const parts: Array<TextBlock | ImageBlock> = [];
  const text: string[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        text.push(item.text);
        break;
      case 'image':
        if (imageTypes.has(item.mimeType)) {
          flushText(server, text, parts);
          parts.push({
            type: 'image',
            source: { type: 'base64', mediaType: item.mimeType as ImageMediaType, data: item.data },
          });
        } else {
          text.push(`[image ${item.mimeType}, ${base64Bytes(item.data)} bytes, not shown: unsupported type]`);
        }
        break;
      case 'audio':
        text.push(`[audio ${item.mimeType}, ${base64Bytes(item.data)} bytes, not shown]`);
        break;
      case 'resource': {
        const resource = item.resource;
        if ('text' in resource && typeof resource.text === 'string') {
          text.push(
            `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]\n${resource.text}`,
          );
        } else if ('blob' in resource && typeof resource.blob === 'string') {
          const mime = resource.mimeType ?? 'application/octet-stream';
          if (imageTypes.has(mime)) {
            flushText(server, text, parts);
            parts.push({
              type: 'image',
              source: { type: 'base64', mediaType: mime as ImageMediaType, data: resource.blob },
            });
          } else {
            text.push(
              `[resource ${resource.uri} (${mime}), ${base64Bytes(resource.blob)} bytes of binary data]`,
            );
          }
        }
        break;
      }
      case 'resource_link':
        text.push(
          `[resource link ${item.uri}${item.name ? ` "${item.name}"` : ''}${item.mimeType ? ` (${item.mimeType})` : ''}${item.description ? `: ${item.description}` : ''}] Read it with ReadMcpResource.`,
        );
        break;
      default:
        text.push(`[content of type ${(item as { type: string }).type} not shown]`);
    }
  }
  if (result.structuredContent !== undefined && (result.content ?? []).length === 0) {
    text.push(JSON.stringify(result.structuredContent, null, 2));
  }
  flushText(server, text, parts);
  return parts;
}

/** A server's `notifications/progress` for a running call, as the tool's progress event data. */
export interface McpProgress {
  type: 'mcp_progress';
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/** How MCP tools call their server and report. */
export interface McpToolOptions {
  /** `MCP_TOOL_TIMEOUT` in ms. */
  toolTimeoutMs?: number;
  /** `MAX_MCP_OUTPUT_TOKENS`. */
  maxOutputTokens?: number;
  /** Told about large results. */
  warn?: (text: string) => void;
}

/**
 * The zod schema an MCP tool's input is parsed with: any object, refined by the server's own JSON
 * Schema (ajv, every draft, formats checked). Each problem becomes an issue on the parameter it is
 * about, so the model is told which parameter to fix before anything reaches the server. Providers
 * may have been sent a looser version of the schema; this is where the original is enforced.
 */
export function mcpInputSchema(jsonSchema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const validate = createInputValidator(jsonSchema);
  return z.record(z.string(), z.unknown()).superRefine((input, context) => {
    for (const issue of validate(input)) {
      context.addIssue({
        code: 'custom',
        path: issue.path,
        message: issue.message,
        params: { inputIssue: issue },
      });
    }
  });
}

/**
 * One server tool as an efferent tool. The server's JSON Schema is what the model is described
 * (`inputJSONSchema`, emitted per provider) and what the input is checked against before the call. Annotations map onto the contract:
 * `readOnlyHint` → read-only and concurrency-safe, `destructiveHint` → destructive. A read-only hint
 * is the server's own claim, so it never stands in for an allow rule: MCP tools ask unless allowed.
 */
export function createMcpTool(
  connection: McpConnection,
  serverName: string,
  descriptor: McpToolDescriptor,
  qualifiedName: string,
  options: McpToolOptions = {},
): AnyTool {
  const readOnly = descriptor.annotations?.readOnlyHint === true;
  const destructive = descriptor.annotations?.destructiveHint === true;
  const openWorld = descriptor.annotations?.openWorldHint;
  const description = cutText(
    descriptor.description?.trim() || `Tool ${descriptor.name} of MCP server ${serverName}.`,
  );
  const notes = [
    `(MCP tool from server "${serverName}"${readOnly ? ', read-only' : ''}${destructive ? ', destructive' : ''}${openWorld ? ', reaches outside systems' : ''}.)`,
  ];
  const maxTokens = options.maxOutputTokens ?? defaultMaxMcpOutputTokens;
  const inputSchema =
    descriptor.inputSchema && typeof descriptor.inputSchema === 'object'
      ? { ...descriptor.inputSchema, type: 'object' }
      : { type: 'object', properties: {} };
  return buildTool<Record<string, unknown>, Array<TextBlock | ImageBlock>, McpProgress>({
    name: qualifiedName,
    inputSchema: mcpInputSchema(inputSchema),
    inputJSONSchema: inputSchema,
    prompt: `${description}\n${notes.join('\n')}`,
    mcpInfo: { serverName, toolName: descriptor.name },
    searchHint: `${serverName} ${descriptor.title ?? descriptor.annotations?.title ?? descriptor.name}`.slice(
      0,
      80,
    ),
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    isDestructive: () => destructive,
    interruptBehavior: () => 'cancel',
    maxResultSizeChars: maxTokens * 4,
    userFacingName: () =>
      `${serverName} - ${descriptor.title ?? descriptor.annotations?.title ?? descriptor.name} (MCP)`,
    description: () => `${serverName}: ${descriptor.name}`,
    async call(input, context, _canUseTool, onProgress, toolUseId) {
      let result: CallToolResult;
      try {
        result = await connection.callTool(descriptor.name, input, {
          signal: context.run.abortController.signal,
          ...(options.toolTimeoutMs ? { timeoutMs: options.toolTimeoutMs } : {}),
          onProgress: forwardProgress(onProgress, toolUseId),
        });
      } catch (error) {
        if (context.run.abortController.signal.aborted) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new EfferentError(
          'tool_failed',
          /^MCP server/.test(reason)
            ? reason
            : `MCP server "${serverName}" failed on ${descriptor.name}: ${reason.replace(/\.$/, '')}. The call may be retried once; if it fails again, continue without this tool.`,
          { cause: error },
        );
      }
      const content = mapCallToolResult(serverName, result);
      const size = content.reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : 0), 0);
      const tokens = Math.ceil(size / 4);
      if (tokens > mcpOutputWarningTokens) {
        options.warn?.(
          `MCP tool ${qualifiedName} returned about ${tokens} tokens${tokens > maxTokens ? `, more than MAX_MCP_OUTPUT_TOKENS (${maxTokens}); the model gets a preview and the saved file` : ''}.`,
        );
      }
      if (result.isError) {
        const text = content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('\n');
        throw new EfferentError(
          'tool_failed',
          text || `MCP tool ${descriptor.name} reported an error without a message.`,
        );
      }
      return { data: content };
    },
    mapResultToBlock(output, toolUseId): ToolResultBlock {
      const onlyText = output.every((part) => part.type === 'text');
      return {
        type: 'tool_result',
        toolUseId,
        content: onlyText ? output.map((part) => (part as TextBlock).text).join('\n') : output,
      };
    },
  });
}
