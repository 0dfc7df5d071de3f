import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import {
  emptyUsage,
  isBadStopReason,
  loadedSubset,
  type ModelProvider,
  type ModelRequest,
  type StopReason,
  type StreamEvent,
} from '../core/index.ts';
import { toOpenAIMessages, toOpenAITools } from './openai-request.ts';
import { missingSdk, providerErrorEvent } from './provider-errors.ts';
import { describeTools } from './tool-definitions.ts';
import { ToolInputAccumulator } from './tool-input-accumulator.ts';

/** How to reach an OpenAI-compatible Chat Completions endpoint (OpenAI, or a local server). */
export interface OpenAIProviderOptions {
  model: string;
  apiKey?: string;
  /** Any OpenAI-compatible endpoint, e.g. `http://127.0.0.1:8080/v1` for a local server. */
  baseURL?: string;
  /** Sent as `max_completion_tokens` when set; many local servers ignore it. */
  maxTokens?: number;
  maxRetries?: number;
  client?: OpenAI;
}

function stopReasonFrom(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

interface OpenCall {
  id: string;
  name: string;
  input: ToolInputAccumulator;
}

/** OpenAI-compatible Chat Completions, streamed, behind efferent's stream-event model. */
export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  // The SDK is loaded on the first request, so commands that never call a model start fast.
  let pending: Promise<OpenAI> | undefined;
  const client = () => {
    pending ??= options.client
      ? Promise.resolve(options.client)
      : import('openai').catch(missingSdk('openai')).then(
          ({ default: SDK }) =>
            new SDK({
              apiKey: options.apiKey ?? 'not-needed',
              ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
              maxRetries: options.maxRetries ?? 2,
            }),
        );
    return pending;
  };
  return {
    name: 'openai',
    model: options.model,
    stream: (request) => streamOpenAI(client, options, request),
  };
}

async function* streamOpenAI(
  clientOf: () => Promise<OpenAI>,
  options: OpenAIProviderOptions,
  request: ModelRequest,
): AsyncGenerator<StreamEvent, void> {
  const usage = emptyUsage();
  const open = new Map<number, OpenCall>();
  let stopReason: StopReason | undefined;
  // Calls arrive in index order, so a new index means every earlier call is complete: end them at
  // once so the executor can start them while the model is still streaming.
  function* closeBefore(index: number): Generator<StreamEvent> {
    for (const [openIndex, call] of [...open].sort(([left], [right]) => left - right)) {
      if (openIndex >= index) continue;
      open.delete(openIndex);
      yield { type: 'tool_use_end', id: call.id, name: call.name, ...call.input.finish() };
    }
  }
  try {
    // No native deferral: only loaded tools are sent, and a search that loads more re-emits the list.
    const tools = toOpenAITools(
      await describeTools(loadedSubset(request.tools, request.deferral), request.isNonInteractive ?? false),
    );
    const maxTokens = request.maxTokens ?? options.maxTokens;
    const stream = await (await clientOf()).chat.completions.create(
      {
        model: options.model,
        messages: toOpenAIMessages(request.systemPrompt, request.messages),
        ...(tools.length > 0 ? { tools } : {}),
        ...(maxTokens === undefined ? {} : { max_completion_tokens: maxTokens }),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: request.signal },
    );
    let started = false;
    for await (const chunk of stream) {
      if (!started) {
        started = true;
        yield { type: 'message_start', model: chunk.model, messageId: chunk.id };
      }
      if (chunk.usage) {
        const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        usage.inputTokens = chunk.usage.prompt_tokens - cached;
        usage.cacheReadInputTokens = cached;
        usage.outputTokens = chunk.usage.completion_tokens;
      }
      const choice = chunk.choices[0];
      if (!choice) continue;
      const delta = choice.delta as typeof choice.delta & { reasoning_content?: string | null };
      if (delta.reasoning_content) yield { type: 'thinking_delta', thinking: delta.reasoning_content };
      if (delta.content) yield { type: 'text_delta', text: delta.content };
      for (const toolCall of delta.tool_calls ?? []) {
        yield* closeBefore(toolCall.index);
        let call = open.get(toolCall.index);
        if (!call) {
          call = {
            id: toolCall.id ?? `call_${randomUUID().slice(0, 12)}`,
            name: toolCall.function?.name ?? '',
            input: new ToolInputAccumulator(),
          };
          open.set(toolCall.index, call);
          yield { type: 'tool_use_start', id: call.id, name: call.name };
        }
        const fragment = toolCall.function?.arguments;
        if (fragment) {
          call.input.append(fragment);
          yield { type: 'tool_input_delta', id: call.id, partialJson: fragment };
        }
      }
      if (choice.finish_reason) {
        stopReason = stopReasonFrom(choice.finish_reason);
        // After a cut-off the call still open may be incomplete: leave it unended so it never runs.
        if (isBadStopReason(stopReason)) open.clear();
        yield* closeBefore(Number.POSITIVE_INFINITY);
      }
    }
    if (request.signal.aborted) {
      yield { type: 'message_end', stopReason: 'aborted', usage };
      return;
    }
    yield* closeBefore(Number.POSITIVE_INFINITY);
    if (stopReason === undefined)
      yield { type: 'error', message: 'openai: the stream ended without a finish reason.' };
    else yield { type: 'message_end', stopReason, usage };
  } catch (error) {
    if (request.signal.aborted) yield { type: 'message_end', stopReason: 'aborted', usage };
    else yield providerErrorEvent('openai', error);
  }
}
