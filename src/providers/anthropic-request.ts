import type Anthropic from '@anthropic-ai/sdk';
import {
  type ContentBlock,
  type ImageBlock,
  type Message,
  type TextBlock,
  toAnthropicSchema,
} from '../core/index.ts';
import type { ToolDescriptor } from './tool-definitions.ts';

type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;

function imageParam(block: ImageBlock): Anthropic.ImageBlockParam {
  return {
    type: 'image',
    source: { type: 'base64', media_type: block.source.mediaType, data: block.source.data },
  };
}

function textOrImage(block: TextBlock | ImageBlock): Anthropic.TextBlockParam | Anthropic.ImageBlockParam {
  return block.type === 'text' ? { type: 'text', text: block.text } : imageParam(block);
}

function blockParam(block: ContentBlock): ContentBlockParam | undefined {
  switch (block.type) {
    case 'text':
      return block.text === '' ? undefined : { type: 'text', text: block.text };
    case 'image':
      return imageParam(block);
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result': {
      const base = typeof block.content === 'string' ? block.content : block.content.map(textOrImage);
      // Tools a search loaded come back as tool_reference blocks, which the API expands to their definitions.
      const references = (block.toolReferences ?? []).map(
        (name): Anthropic.ToolReferenceBlockParam => ({ type: 'tool_reference', tool_name: name }),
      );
      const content: Anthropic.ToolResultBlockParam['content'] =
        references.length === 0
          ? base
          : [
              ...(typeof base === 'string'
                ? base === ''
                  ? []
                  : [{ type: 'text' as const, text: base }]
                : base),
              ...references,
            ];
      const param: Anthropic.ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: block.toolUseId,
        content,
      };
      if (block.isError) param.is_error = true;
      return param;
    }
    case 'thinking':
      // Unsigned reasoning cannot be sent back; the API would reject it.
      return block.signature === undefined
        ? undefined
        : { type: 'thinking', thinking: block.thinking, signature: block.signature };
  }
}

/**
 * Puts a `cache_control` breakpoint on the last block of the last message that can carry one, so
 * the whole conversation so far is cached and the next request reads it back: the breakpoint moves
 * with the conversation (with the tools' and the system prompt's, three of the four allowed).
 */
export function withConversationBreakpoint(messages: MessageParam[]): MessageParam[] {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!message || typeof message.content === 'string') continue;
    const blocks = [...message.content];
    const at = blocks.findLastIndex(
      (block) => block.type !== 'thinking' && block.type !== 'redacted_thinking',
    );
    if (at < 0) continue;
    blocks[at] = { ...blocks[at], cache_control: { type: 'ephemeral' } } as ContentBlockParam;
    return messages.map((each, position) =>
      position === index ? ({ ...each, content: blocks } as MessageParam) : each,
    );
  }
  return messages;
}

/** Conversation messages in the Messages API shape. */
export function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
  const result: MessageParam[] = [];
  for (const message of messages) {
    const content = message.content.flatMap((block) => {
      const param = blockParam(block);
      return param ? [param] : [];
    });
    if (content.length > 0) result.push({ role: message.role, content });
  }
  return result;
}

/**
 * Tool definitions, with a `cache_control` breakpoint after the last built-in tool that is not
 * deferred: the built-in prefix stays cached when MCP tools come and go. Deferred tools carry
 * `defer_loading`, so the model sees their names only until a tool_reference loads them.
 */
export function toAnthropicTools(tools: readonly ToolDescriptor[]): Anthropic.Tool[] {
  const lastBuiltIn = tools.findLastIndex((tool) => !tool.isMcp && !tool.deferLoading);
  return tools.map((tool, index) => {
    const definition: Anthropic.Tool = {
      name: tool.name,
      description: tool.description,
      input_schema: toAnthropicSchema(tool.inputSchema) as Anthropic.Tool.InputSchema,
    };
    if (tool.deferLoading) definition.defer_loading = true;
    if (index === lastBuiltIn) definition.cache_control = { type: 'ephemeral' };
    return definition;
  });
}

/** The system prompt as one cached text block. */
export function toAnthropicSystem(systemPrompt: string): Anthropic.TextBlockParam[] | undefined {
  if (systemPrompt === '') return undefined;
  return [{ type: 'text', text: systemPrompt, cache_control: { type: 'ephemeral' } }];
}
