import type OpenAI from 'openai';
import type { ImageBlock, JsonSchema, Message, TextBlock, ToolResultBlock } from '../core/index.ts';
import { toOpenAISchema, toOpenAIStrictSchema, toolResultText } from '../core/index.ts';
import type { ToolDescriptor } from './tool-definitions.ts';

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
type UserPart = OpenAI.Chat.ChatCompletionContentPartText | OpenAI.Chat.ChatCompletionContentPartImage;

function imagePart(block: ImageBlock): UserPart {
  return {
    type: 'image_url',
    image_url: { url: `data:${block.source.mediaType};base64,${block.source.data}` },
  };
}

function userPart(block: TextBlock | ImageBlock): UserPart | undefined {
  if (block.type === 'image') return imagePart(block);
  return block.text === '' ? undefined : { type: 'text', text: block.text };
}

function toolResultImages(block: ToolResultBlock): ImageBlock[] {
  return typeof block.content === 'string'
    ? []
    : block.content.filter((part): part is ImageBlock => part.type === 'image');
}

/**
 * Conversation messages in the Chat Completions shape: tool results become `role: tool` messages right
 * after the assistant turn; images (which `tool` messages cannot carry) follow as user content parts.
 */
export function toOpenAIMessages(systemPrompt: string, messages: readonly Message[]): ChatMessage[] {
  const result: ChatMessage[] = [];
  if (systemPrompt !== '') result.push({ role: 'system', content: systemPrompt });
  for (const message of messages) {
    if (message.role === 'assistant') {
      const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      const toolCalls = message.content.flatMap((block) =>
        block.type === 'tool_use'
          ? [
              {
                id: block.id,
                type: 'function' as const,
                function: { name: block.name, arguments: JSON.stringify(block.input) },
              },
            ]
          : [],
      );
      const assistant: OpenAI.Chat.ChatCompletionAssistantMessageParam = {
        role: 'assistant',
        content: text || null,
      };
      if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
      if (text || toolCalls.length > 0) result.push(assistant);
      continue;
    }
    const parts: UserPart[] = [];
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        const text = toolResultText(block);
        result.push({
          role: 'tool',
          tool_call_id: block.toolUseId,
          content: block.isError ? `Error: ${text}` : text,
        });
        const images = toolResultImages(block);
        if (images.length > 0) {
          parts.push(
            { type: 'text', text: `Images from tool call ${block.toolUseId}:` },
            ...images.map(imagePart),
          );
        }
      } else if (block.type === 'text' || block.type === 'image') {
        const part = userPart(block);
        if (part) parts.push(part);
      }
    }
    if (parts.length > 0) result.push({ role: 'user', content: parts });
  }
  return result;
}

/** The schema sent for a tool: the strict form when the tool goes strict, else the non-strict one. */
function openAIParameters(tool: ToolDescriptor): JsonSchema {
  if (tool.strict) {
    const strict = toOpenAIStrictSchema(tool.inputSchema);
    if (strict.ok) return strict.schema;
  }
  return toOpenAISchema(tool.inputSchema);
}

/** Function tool definitions. */
export function toOpenAITools(tools: readonly ToolDescriptor[]): OpenAI.Chat.ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: openAIParameters(tool),
      ...(tool.strict ? { strict: true } : {}),
    },
  }));
}
