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
  index: number;
  id: string;
  name: string;
  input: ToolInputAccumulator;
  ended: boolean;
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
              maxRetries: options.maxRetries ?? 0,
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
  // Calls by the index the server gives them: fragments of several calls may arrive interleaved
  // (vLLM, llama.cpp and others), so every fragment goes to its index's call and nowhere else.
  const calls = new Map<number, OpenCall>();
  let stopReason: StopReason | undefined;
  const end = (call: OpenCall): StreamEvent => {
    call.ended = true;
    const finished = call.input.finish();
    if (call.name === '') {
      return {
        type: 'tool_use_end',
        id: call.id,
        name: call.name,
        input: {},
        inputError: `tool call ${call.index} arrived without a function name`,
      };
    }
    return { type: 'tool_use_end', id: call.id, name: call.name, ...finished };
  };
  // A call is over once a later index has begun and its arguments are one complete JSON object: it
  // can start while the model is still streaming. Anything else waits for the finish reason.
  function* endCompleteBefore(index: number): Generator<StreamEvent> {
    for (const call of [...calls.values()].sort((left, right) => left.index - right.index)) {
      if (call.index >= index || call.ended) continue;
      if (call.name !== '' && call.input.isComplete()) yield end(call);
    }
  }
  // Servers that leave out the index: a new id starts a call, a fragment without one continues the last.
  const indexWithout = (id: string | undefined): number => {
    const last = [...calls.values()].at(-1);
    return last && (!id || id === last.id) ? last.index : calls.size;
  };
  function* endAll(): Generator<StreamEvent> {
    for (const call of [...calls.values()].sort((left, right) => left.index - right.index)) {
      if (!call.ended) yield end(call);
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
        const index = typeof toolCall.index === 'number' ? toolCall.index : indexWithout(toolCall.id);
        let call = calls.get(index);
        if (!call) {
          yield* endCompleteBefore(index);
          call = {
            index,
            id: toolCall.id || `call_${randomUUID().slice(0, 12)}`,
            name: toolCall.function?.name ?? '',
            input: new ToolInputAccumulator(),
            ended: false,
          };
          calls.set(index, call);
          yield { type: 'tool_use_start', id: call.id, name: call.name };
        } else if (toolCall.function?.name && toolCall.function.name !== call.name) {
          // Some servers repeat the name in every fragment, others split it.
          call.name = call.name === '' ? toolCall.function.name : call.name + toolCall.function.name;
        }
        const fragment = toolCall.function?.arguments;
        if (!fragment) continue;
        if (call.ended) {
          if (fragment.trim() === '') continue;
          yield {
            type: 'error',
            message: `openai: tool call ${index} (${call.name}) received more arguments after they formed a complete JSON object; the response is malformed.`,
          };
          return;
        }
        call.input.append(fragment);
        yield { type: 'tool_input_delta', id: call.id, partialJson: fragment };
      }
      if (choice.finish_reason) {
        stopReason = stopReasonFrom(choice.finish_reason);
        // After a cut-off the calls still open may be incomplete: leave them unended so they never run.
        if (!isBadStopReason(stopReason)) yield* endAll();
        else for (const call of calls.values()) call.ended = true;
      }
    }
    if (request.signal.aborted) {
      yield { type: 'message_end', stopReason: 'aborted', usage };
      return;
    }
    if (stopReason === undefined) {
      // The connection closed before the model finished: a dropped connection, worth retrying.
      yield {
        type: 'error',
        message: 'openai: the stream ended without a finish reason (the connection was dropped).',
        retryable: true,
        usage: { ...usage },
      };
    } else yield { type: 'message_end', stopReason, usage };
  } catch (error) {
    if (request.signal.aborted) yield { type: 'message_end', stopReason: 'aborted', usage };
    else yield providerErrorEvent('openai', error, usage);
  }
}
