import type Anthropic from '@anthropic-ai/sdk';
import {
  emptyUsage,
  type ModelProvider,
  type ModelRequest,
  type StopReason,
  type StreamEvent,
  type TokenUsage,
} from '../core/index.ts';
import {
  toAnthropicMessages,
  toAnthropicSystem,
  toAnthropicTools,
  withConversationBreakpoint,
} from './anthropic-request.ts';
import { missingSdk, providerErrorEvent } from './provider-errors.ts';
import { describeTools } from './tool-definitions.ts';
import { ToolInputAccumulator } from './tool-input-accumulator.ts';

/** How to reach the Anthropic Messages API. */
export interface AnthropicProviderOptions {
  model: string;
  apiKey?: string;
  /** Any endpoint that speaks the Messages API (a proxy, a gateway, a test server). */
  baseURL?: string;
  /** Default 8192. */
  maxTokens?: number;
  /**
   * The SDK's own retries of a request that failed before streaming; default 0, because `runAgent`
   * retries whole turns (with backoff, `retry-after`, and mid-stream failures too).
   */
  maxRetries?: number;
  /** A ready client instead of apiKey/baseURL. */
  client?: Anthropic;
}

function stopReasonFrom(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'refusal':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** The Anthropic Messages API, streamed, behind efferent's stream-event model. */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  // The SDK is loaded on the first request, so commands that never call a model start fast.
  let pending: Promise<Anthropic> | undefined;
  const client = () => {
    pending ??= options.client
      ? Promise.resolve(options.client)
      : import('@anthropic-ai/sdk').catch(missingSdk('@anthropic-ai/sdk')).then(
          ({ default: SDK }) =>
            new SDK({
              ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
              ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
              maxRetries: options.maxRetries ?? 0,
            }),
        );
    return pending;
  };
  return {
    name: 'anthropic',
    model: options.model,
    stream: (request) => streamAnthropic(client, options, request),
  };
}

async function* streamAnthropic(
  clientOf: () => Promise<Anthropic>,
  options: AnthropicProviderOptions,
  request: ModelRequest,
): AsyncGenerator<StreamEvent, void> {
  const toolBlocks = new Map<number, { id: string; name: string; input: ToolInputAccumulator }>();
  const usage: TokenUsage = emptyUsage();
  let stopReason: StopReason = 'end_turn';
  try {
    const tools = toAnthropicTools(
      await describeTools(request.tools, request.isNonInteractive ?? false, request.deferral),
    );
    const system = toAnthropicSystem(request.systemPrompt);
    const stream = await (await clientOf()).messages.create(
      {
        model: options.model,
        max_tokens: request.maxTokens ?? options.maxTokens ?? 8192,
        messages: withConversationBreakpoint(toAnthropicMessages(request.messages)),
        ...(system ? { system } : {}),
        ...(tools.length > 0 ? { tools } : {}),
        stream: true,
      },
      { signal: request.signal },
    );
    for await (const event of stream) {
      switch (event.type) {
        case 'message_start': {
          const start = event.message.usage;
          usage.inputTokens = start.input_tokens ?? 0;
          usage.cacheReadInputTokens = start.cache_read_input_tokens ?? 0;
          usage.cacheCreationInputTokens = start.cache_creation_input_tokens ?? 0;
          usage.outputTokens = start.output_tokens ?? 0;
          yield {
            type: 'message_start',
            model: event.message.model,
            messageId: event.message.id,
            usage: { ...usage },
          };
          break;
        }
        case 'content_block_start': {
          const block = event.content_block;
          if (block.type === 'tool_use') {
            toolBlocks.set(event.index, {
              id: block.id,
              name: block.name,
              input: new ToolInputAccumulator(),
            });
            yield { type: 'tool_use_start', id: block.id, name: block.name };
          } else if (block.type === 'text' && block.text) yield { type: 'text_delta', text: block.text };
          else if (block.type === 'thinking' && block.thinking) {
            yield { type: 'thinking_delta', thinking: block.thinking };
          }
          break;
        }
        case 'content_block_delta': {
          const delta = event.delta;
          if (delta.type === 'text_delta') yield { type: 'text_delta', text: delta.text };
          else if (delta.type === 'input_json_delta') {
            const tool = toolBlocks.get(event.index);
            if (tool) {
              tool.input.append(delta.partial_json);
              yield { type: 'tool_input_delta', id: tool.id, partialJson: delta.partial_json };
            }
          } else if (delta.type === 'thinking_delta')
            yield { type: 'thinking_delta', thinking: delta.thinking };
          else if (delta.type === 'signature_delta') {
            yield { type: 'thinking_delta', thinking: '', signature: delta.signature };
          }
          break;
        }
        case 'content_block_stop': {
          const tool = toolBlocks.get(event.index);
          if (!tool) break;
          toolBlocks.delete(event.index);
          yield { type: 'tool_use_end', id: tool.id, name: tool.name, ...tool.input.finish() };
          break;
        }
        case 'message_delta': {
          stopReason = stopReasonFrom(event.delta.stop_reason);
          const delta = event.usage;
          usage.outputTokens = delta.output_tokens ?? usage.outputTokens;
          if (typeof delta.input_tokens === 'number') usage.inputTokens = delta.input_tokens;
          if (typeof delta.cache_read_input_tokens === 'number') {
            usage.cacheReadInputTokens = delta.cache_read_input_tokens;
          }
          if (typeof delta.cache_creation_input_tokens === 'number') {
            usage.cacheCreationInputTokens = delta.cache_creation_input_tokens;
          }
          break;
        }
        case 'message_stop':
          yield { type: 'message_end', stopReason, usage };
          return;
      }
    }
    if (request.signal.aborted) yield { type: 'message_end', stopReason: 'aborted', usage };
    else {
      // The connection closed before the message ended: a dropped connection, worth retrying.
      yield {
        type: 'error',
        message: 'anthropic: the stream ended before message_stop (the connection was dropped).',
        retryable: true,
        usage: { ...usage },
      };
    }
  } catch (error) {
    if (request.signal.aborted) yield { type: 'message_end', stopReason: 'aborted', usage };
    else yield providerErrorEvent('anthropic', error, usage);
  }
}
